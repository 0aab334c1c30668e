"""WSGI entry point: `gunicorn arena.wsgi` with `platform/` on the Python path."""

import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")

application = get_wsgi_application()

# What is loaded now (Django, DRF, the apps: most of the process's objects) lives as
# long as the worker. Frozen, it is left out of the collector's full passes, which come
# every few requests of a busy page and walked all of it: a request waited for one
# (bench/platform.py measures the pages' wall and CPU time).
gc.collect()
gc.freeze()
# A request of a list page makes tens of thousands of container objects (rows, dicts,
# the JSON's parts): with the default young generation of 700 it ran dozens of young
# and middle passes and a full one every few requests. 50,000 lets most requests end
# before the first pass; their objects die young anyway (the list pages' CPU time fell
# to a fraction, bench/platform.py).
gc.set_threshold(50_000, 10, 10)
