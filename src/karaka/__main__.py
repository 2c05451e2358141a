"""``python -m karaka``: the command line."""

from karaka.app.cli import entry

entry()
