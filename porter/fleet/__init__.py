"""porter fleet: many repositories through the one pipeline, on a local pool or an existing Dask cluster, into a
database of runs (SQLite or PostgreSQL) that `porter fleet report` ranks and compares.

One module per job: inventory (the list of repositories), checkout (clone or fetch into porter's own cache and
resolve the commit), assess (one repository through porter.pipeline, as `porter assess` runs it), execute (the
local pool or Dask), store (the database and its schema versions), report (the fleet document) and render (its
formats), cli (the typer commands).
"""
