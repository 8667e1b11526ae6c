"""The command line, one module per group of subcommands: ``main`` (the ``tcpair``
group, ``run``, ``validate``), ``sweep`` (``sweep``, ``reproduce``, ``results``),
``info`` (``list``, ``report``, ``pcap-dissector``), ``store``, ``plot`` and
``bench`` (``bench``, ``ns2-check``); ``common`` holds what they share and
``runview`` draws a run's tables on a terminal."""

from tcpair.cli.main import main

__all__ = ["main"]
