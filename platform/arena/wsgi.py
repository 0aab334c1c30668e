"""WSGI entry point: `gunicorn arena.wsgi` with `platform/` on the Python path."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")

application = get_wsgi_application()
