"""WSGI entry point (gunicorn studio.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studio.settings.local")
application = get_wsgi_application()
