"""Batches of tracks: generated tracks, Dask tasks per track, results kept in DuckDB.

`generate` draws random valid tracks (reproducible by seed); `runner` analyses or
certifies many tracks as Dask tasks, one per track, with a state limit per task;
`store` keeps one row per (track sha256, mode, racecert version) in an embedded
DuckDB database, committed as each task finishes; `report` summarises that table
as text, CSV and a PNG plot. This package sits above `analysis` and
`certification`, below the command line.
"""
