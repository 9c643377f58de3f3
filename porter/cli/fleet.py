"""`porter fleet`: the organisation-wide commands (porter.fleet.cli), registered under this command line."""
from __future__ import annotations

from porter.cli.base import app
from porter.fleet.cli import app as fleet_app

app.add_typer(fleet_app, name="fleet")
