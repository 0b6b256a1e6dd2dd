"""Cluster Studio: the Django project (persistence, web, API, Celery tasks)."""

from studio.celery import app as celery_app

__all__ = ["celery_app"]
