"""Benchmarks: events per second of one long run against a baseline (``events``)
and the cost of many flows through one base station (``scale``). Speed is measured
here and by ``cargo bench``, never by timed tests."""

from tcpair.bench.events import bench, guard

__all__ = ["bench", "guard"]
