"""The one Celery app. Redis (or the embedded filesystem transport) carries messages only;
task outcomes are written to the database by the tasks themselves."""

import os
from pathlib import Path

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings.local")

app = Celery("studio")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.on_configure.connect
def _create_filesystem_broker_folders(sender: Celery, **_kwargs) -> None:
    """kombu's filesystem transport expects its folders to exist."""
    options = sender.conf.broker_transport_options or {}
    for key in ("data_folder_in", "data_folder_out", "processed_folder"):
        if options.get(key):
            Path(options[key]).mkdir(parents=True, exist_ok=True)
