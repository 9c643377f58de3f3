"""`python -m porter`: the same command line as the `porter` script."""
from porter.cli import entry

entry()
