"""WSGI entry point (gunicorn studio.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings.local")
application = get_wsgi_application()

# The evidence grades on results pages read the engine's validation table: build it now, in the
# background, rather than on the first page view.
from studio.reports.apps import warm_validation_table  # noqa: E402

warm_validation_table()
