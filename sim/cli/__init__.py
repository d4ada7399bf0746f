"""Command line: ``python main.py`` (see :mod:`sim.cli.main`)."""
