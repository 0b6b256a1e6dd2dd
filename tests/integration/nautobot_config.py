"""Nautobot settings for the DCIM-export integration test: Nautobot's own defaults with the
database, Redis and secret from the environment (bin/nautobot-env sets them)."""

import os

from nautobot.core.settings import *  # noqa: F403 (Nautobot's documented way to extend its settings)
from nautobot.core.settings_funcs import is_truthy

SECRET_KEY = os.environ["NAUTOBOT_SECRET_KEY"]
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
DEBUG = is_truthy(os.getenv("NAUTOBOT_DEBUG", "False"))
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": os.environ["NAUTOBOT_DB_NAME"],
        "USER": os.getenv("NAUTOBOT_DB_USER", "postgres"),
        "PASSWORD": os.getenv("NAUTOBOT_DB_PASSWORD", ""),
        "HOST": os.getenv("NAUTOBOT_DB_HOST", "127.0.0.1"),
        "PORT": os.getenv("NAUTOBOT_DB_PORT", "5432"),
    }
}
_REDIS_URL = os.environ["NAUTOBOT_REDIS_URL"]
CACHES = {
    "default": {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": _REDIS_URL,
        "OPTIONS": {"CLIENT_CLASS": "django_redis.client.DefaultClient"},
    }
}
CELERY_BROKER_URL = _REDIS_URL
CELERY_RESULT_BACKEND = "nautobot.core.celery.backends.NautobotDatabaseBackend"
INSTALLATION_METRICS_ENABLED = False
