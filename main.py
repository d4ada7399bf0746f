"""Entry point: ``python main.py --help``."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sim.cli.main import entry  # noqa: E402

if __name__ == "__main__":
    sys.exit(entry())
