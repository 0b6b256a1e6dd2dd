"""Laptop / demo settings: debug on, an insecure key that never leaves this machine."""

from .base import *  # noqa: F403
from .base import env

DEBUG = env.bool("DJANGO_DEBUG", default=True)
SECRET_KEY = env("DJANGO_SECRET_KEY", default="local-dev-only-not-a-secret-0123456789abcdefghij")
# Finders only in development: with DEBUG off (bin/up's default) the collected, compressed,
# hashed files are served, with far-future immutable caching.
WHITENOISE_USE_FINDERS = env.bool("WHITENOISE_USE_FINDERS", default=DEBUG)
