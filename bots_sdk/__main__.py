"""``python -m bots_sdk``: see :mod:`bots_sdk.cli`."""

import sys

from .cli import main

sys.exit(main())
