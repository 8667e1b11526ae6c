"""Detectors and responders written in Python (docs/python.md): twins of built-in
ones, to copy from; ``tcpair.examples.lda`` is tested to decide exactly as the
core's ``lda_eq`` detector and responders 1 and 11-27 do."""
