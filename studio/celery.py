"""The one Celery app. Redis (or the embedded filesystem transport) carries messages only;
task outcomes are written to the database by the tasks themselves."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings.local")

app = Celery("studio")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
