#!/usr/bin/env python3
"""Django's command-line utility for the Las Vegas Arena platform."""

import os
import sys
from pathlib import Path

# `platform/` is a plain directory (a package of that name would shadow the
# stdlib module): put it on sys.path so the project imports as `arena.*`.
PLATFORM_DIR = Path(__file__).resolve().parent / "platform"


def main() -> None:
    sys.path.insert(0, str(PLATFORM_DIR))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
