"""The results store: one folder per sweep, its runs kept as Parquet files under a
manifest of digests (``store``, ``manifest``), atomic writes (``atomic``) and the row
tables they are built from (``rowtables``). Knows nothing of scenarios or sweeps
beyond the rows it is handed."""
