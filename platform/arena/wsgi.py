"""WSGI entry point: `gunicorn arena.wsgi` with `platform/` on the Python path."""

import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")

application = get_wsgi_application()

# What is loaded now (Django, DRF, the apps: some 150,000 objects) lives as long as the
# worker. Frozen, it is left out of the collector's full passes, which come every ten
# requests or so of a busy page and walked all of it: a request waited 100-500 ms for
# one (bench/platform.py, at 10,000 bots).
gc.collect()
gc.freeze()
