"""Sweeps: many runs of a scenario over axes of parameters and seeds.

- ``definition``, ``axes``, ``parts``: a sweep file, parsed and checked into tasks;
- ``runner``: plans, runs and resumes a sweep into its results store, in rounds of
  seeds (``rounds``), with a progress line (``progress``);
- ``backends``: where runs execute: this process (``workers``, which also holds
  what every backend shares), a local process pool (``pool``) or a Dask cluster
  (``dask_backend``, ``dask_local``);
- ``execute``, ``checks``: a sweep's runs sent to a backend and stored; what is
  checked before anything is written;
- ``commit``: results gathered in groups and committed to the store;
- ``view``: a stored sweep read back (:class:`~tcpair.sweeper.view.SweepResult`);
- ``repair``: checking a store and running again what was damaged.
"""
