"""Running one scenario: loading a scenario file and applying overrides
(``scenario``), Python plug-ins (``plugins``), the call into the Rust core
(``binding``), the answer as a :class:`~tcpair.simulate.result.Result` with
``tcpair.run``, ``validate`` and ``catalog`` (``result``), packet traces (``trace``,
``trace_plot``) and the core's own program ``tcpair-sim`` (``core_program``)."""
