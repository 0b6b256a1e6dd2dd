"""Test settings: PostgreSQL and Redis when their URLs are set (as in CI), fast hashing."""

from .base import *  # noqa: F403
from .base import env

DEBUG = False
SECRET_KEY = env("DJANGO_SECRET_KEY", default="test-only-not-a-secret-0123456789abcdefghijklmn")
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Unit tests run tasks in-process; the worker tests start a real Celery worker instead.
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=True)
REPORTS_WARM_PDF_TOOLS = False  # no chromium per test worker process
VALIDATION_WARM = False  # built on first use, once per test process
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
MAILERS = {"default": {"BACKEND": "django.core.mail.backends.locmem.EmailBackend"}}
# The test client's login() calls authenticate() without a request, which django-axes refuses;
# this backend lets only that through (no request, no address to lock out). Production keeps
# axes' own backend, which fails closed.
AUTHENTICATION_BACKENDS = [
    "studio.accounts.backends.TestClientAxesBackend",
    "django.contrib.auth.backends.ModelBackend",
]
