"""The Django project of the Las Vegas Arena platform.

Loading the Celery app here binds ``@shared_task`` functions to it whenever
Django starts (web, worker, beat, management commands, tests).
"""

from .celery import app as celery_app

__all__ = ["celery_app"]
