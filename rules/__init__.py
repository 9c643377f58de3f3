"""porter's shipped data, authored here and installed as the package `porter.data` (see pyproject.toml).

Rules (<category>/<ID>-<slug>.yaml), the knowledge base (kb/), GPU target profiles (targets/) and the effort
model (effort/). porter reads it only through porter.datafile.DATA_DIR, never by a path relative to its code.
"""
