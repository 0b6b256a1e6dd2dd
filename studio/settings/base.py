"""Settings shared by every environment. Everything that differs comes from the environment."""

from datetime import timedelta
from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parents[2]
VAR_DIR = BASE_DIR / "var"

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

DEBUG = env.bool("DJANGO_DEBUG", default=False)
SECRET_KEY = env("DJANGO_SECRET_KEY", default="")
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])

# The embedded default is a SQLite file under var/, so a laptop with nothing installed works.
DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'studio.sqlite3'}"),
}
DATABASES["default"]["ATOMIC_REQUESTS"] = True
# Persistent connections (bin/up web sets 60 s): a loopback PostgreSQL connect costs several ms
# per request; health checks replace a connection the server dropped before it is used.
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DJANGO_CONN_MAX_AGE", default=0)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets the worker write results while the web process reads.
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA busy_timeout=5000;",
        "transaction_mode": "IMMEDIATE",
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_filters",
    "django_htmx",
    "axes",
    "studio.core",
    "studio.accounts",
    "studio.catalog",
    "studio.designs",
    "studio.runs",
    "studio.reviews",
    "studio.reports",
    "studio.api",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # API / feed tokens on download URLs marked token_readable (spec.json, exports, PDFs).
    "studio.accounts.download_auth.DownloadTokenMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "studio.core.middleware.RequestContextMiddleware",
    # Last, as django-axes asks: turns a locked-out log-in into the lockout page (429).
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "studio.urls"
WSGI_APPLICATION = "studio.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "frontend" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.csp",
                "studio.reviews.context_processors.review_badge",
            ],
        },
    },
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# ASVS 7.3: sessions end after 12 h and when the browser closes.
SESSION_COOKIE_AGE = env.int("DJANGO_SESSION_COOKIE_AGE", default=12 * 3600)
SESSION_EXPIRE_AT_BROWSER_CLOSE = True
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
# Brute force (ASVS 6.3.5, issue 19): django-axes, backed by the database. Five failures for one
# username from one address lock that pair out for the cool-off; from then on the backend refuses
# the attempt before any password is checked (the right password included). Attempts during the
# lockout are not recorded, so hammering neither extends it nor grows its row. API tokens never
# pass through authenticate(), so token auth is unaffected.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("AXES_COOLOFF_MINUTES", default=15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_RESET_ON_SUCCESS = True
# The same client address as the audit log: REMOTE_ADDR only (X-Forwarded-For is spoofable).
AXES_CLIENT_IP_CALLABLE = "studio.core.middleware.client_ip"
AXES_USERNAME_CALLABLE = "studio.accounts.backends.lockout_username"
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_HTTP_RESPONSE_CODE = 429
# Log-ins and log-outs are already in the audit log; failures are in AccessAttempt (one row per
# username, address and user agent, deleted after the cool-off).
AXES_DISABLE_ACCESS_LOG = True
AXES_ENABLE_ACCESS_FAILURE_LOG = False
AXES_VERBOSE = False
# Anonymous failed log-ins write at most one audit row per username and address per window, and
# at most AUDIT_LOGIN_FAILED_PER_IP rows per address per window (studio.accounts.signals).
AUDIT_LOGIN_FAILED_WINDOW_S = env.int("AUDIT_LOGIN_FAILED_WINDOW_S", default=60)
AUDIT_LOGIN_FAILED_PER_IP = env.int("AUDIT_LOGIN_FAILED_PER_IP", default=10)
# One-time links: password reset (Django's token dies with the password it was made for) and
# team invitations (studio.accounts.invitations; stored as a keyed hash).
PASSWORD_RESET_TIMEOUT = env.int("PASSWORD_RESET_TIMEOUT", default=3600)
# Reset requests admitted per client address and per address asked for, per window (a policy
# choice, not a published figure: a person who lost a password needs one or two, a script
# hundreds; studio.accounts.reset_throttle).
PASSWORD_RESET_WINDOW_S = env.int("PASSWORD_RESET_WINDOW_S", default=3600)
PASSWORD_RESET_LIMIT_PER_CLIENT = env.int("PASSWORD_RESET_LIMIT_PER_CLIENT", default=5)
PASSWORD_RESET_LIMIT_PER_ADDRESS = env.int("PASSWORD_RESET_LIMIT_PER_ADDRESS", default=5)
INVITATION_DEFAULT_DAYS = 7
INVITATION_MAX_DAYS = 30


# Where users reach the studio (e.g. https://studio.example.org): e-mails sent outside a request
# (review notices) link there. Unset: the links are paths on the studio's own host.
STUDIO_SITE_URL = env("STUDIO_SITE_URL", default="").rstrip("/")


# Email (Django 6.1 MAILERS): EMAIL_URL in django-environ's form (smtp+tls://user:pass@host:587,
# smtp+ssl://..., consolemail://, filemail:///path, memorymail://, dummymail://), or a backend's
# dotted path in EMAIL_BACKEND (SMTP then reads EMAIL_HOST, EMAIL_PORT, EMAIL_HOST_USER,
# EMAIL_HOST_PASSWORD, EMAIL_USE_TLS). Unset: the console here, SMTP on localhost in production.
CONSOLE_MAIL = "django.core.mail.backends.console.EmailBackend"
SMTP_MAIL = "django.core.mail.backends.smtp.EmailBackend"


def _mailer(default_backend: str = CONSOLE_MAIL) -> dict:
    timeout = env.int("EMAIL_TIMEOUT", default=10)
    if env("EMAIL_URL", default=""):
        url = env.email_url("EMAIL_URL")
        backend = url["EMAIL_BACKEND"]
        smtp = {
            "host": url["EMAIL_HOST"],
            "port": url["EMAIL_PORT"],
            "username": url["EMAIL_HOST_USER"] or "",
            "password": url["EMAIL_HOST_PASSWORD"] or "",
            "use_tls": bool(url.get("EMAIL_USE_TLS")),
            "use_ssl": bool(url.get("EMAIL_USE_SSL")),
            "timeout": timeout,
        }
    else:
        backend = env("EMAIL_BACKEND", default=default_backend)
        url = {"EMAIL_FILE_PATH": env("EMAIL_FILE_PATH", default=str(VAR_DIR / "mail"))}
        smtp = {
            "host": env("EMAIL_HOST", default="localhost"),
            "port": env.int("EMAIL_PORT", default=25),
            "username": env("EMAIL_HOST_USER", default=""),
            "password": env("EMAIL_HOST_PASSWORD", default=""),
            "use_tls": env.bool("EMAIL_USE_TLS", default=False),
            "use_ssl": env.bool("EMAIL_USE_SSL", default=False),
            "timeout": timeout,
        }
    if backend == SMTP_MAIL:
        return {"BACKEND": backend, "OPTIONS": smtp}
    if backend.endswith(".filebased.EmailBackend"):
        return {"BACKEND": backend, "OPTIONS": {"file_path": url["EMAIL_FILE_PATH"]}}
    return {"BACKEND": backend}


MAILERS = {"default": _mailer()}
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", default="Cluster Studio <studio@localhost>")

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "project-list"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise expects it, even before collectstatic
# Serve straight from the finders until collectstatic runs (dev, tests); bin/up (local settings,
# DEBUG off) and production serve only the collected, hashed, compressed files.
WHITENOISE_USE_FINDERS = env.bool("WHITENOISE_USE_FINDERS", default=True)
# Hashed names (app.3f2a9c.css, vendor/plotly.min.<hash>.js) never change content: WhiteNoise
# sends them with `Cache-Control: max-age=<10 years>, public, immutable` (its immutable test is
# "the manifest maps the unhashed name back to this URL"). Unhashed names are revalidated after
# a minute. Compressed variants (.br, .gz, written by collectstatic) are served by
# Accept-Encoding; plotly.min.js is 4.8 MB raw, about 1 MB compressed.
WHITENOISE_MAX_AGE = env.int("WHITENOISE_MAX_AGE", default=60)
WHITENOISE_KEEP_ONLY_HASHED_FILES = False
STATICFILES_DIRS = [BASE_DIR / "frontend" / "static"]
STATICFILES_FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
    # Plotly.js comes from the plotly package itself, never from a CDN.
    "studio.core.staticfinders.PlotlyJsFinder",
]
# Compressed + manifest (hashed names) wherever collectstatic runs (bin/up, the image); the test
# settings use the plain storage so tests need no collectstatic. With DEBUG on, {% static %}
# gives unhashed names, served from the finders.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
MEDIA_ROOT = VAR_DIR / "media"
MEDIA_URL = "/media/"

# Content Security Policy (Django 6 built-in). Plotly.js needs inline styles and a worker-free
# eval-free build; htmx runs from a local file; no third-party origin is allowed.
SECURE_CSP = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'", "'unsafe-inline'"],
    "img-src": ["'self'", "data:", "blob:"],
    "font-src": ["'self'", "data:"],
    "connect-src": ["'self'"],
    "frame-ancestors": ["'none'"],
    "form-action": ["'self'"],
    "base-uri": ["'self'"],
    "object-src": ["'none'"],
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Token first: its WWW-Authenticate header makes DRF answer 401 (not 403) to bad tokens.
        "studio.api.authentication.HashedTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        "studio.api.authentication.TokenWriteScope",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_FILTER_BACKENDS": ["studio.api.filters.StrictFilterBackend"],
    # Bounded inputs: JSON depth/NUL/number size, and ?limit= / ?offset= capped.
    "DEFAULT_PARSER_CLASSES": [
        "studio.api.parsers.StrictJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "studio.api.pagination.BoundedLimitOffsetPagination",
    "PAGE_SIZE": 100,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Cluster Studio API",
    "DESCRIPTION": "Design, evaluate and compare AI training clusters.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Runs and sweeps both have a `status`, several models a `kind`: each choice set is its own
    # named enum in the schema.
    "ENUM_NAME_OVERRIDES": {
        "RunStatusEnum": "studio.runs.models.RunStatus",
        "SweepStatusEnum": "studio.runs.models.SweepStatus",
        "ReviewKindEnum": "studio.reviews.models.ReviewKind",
        "VerdictKindEnum": "studio.reviews.models.VerdictKind",
        "AnchorKindEnum": "studio.reviews.models.AnchorKind",
    },
    # Swagger UI assets from the sidecar package: no CDN, CSP stays strict.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "studio.api.openapi.add_common_errors",
    ],
    # Request and response bodies as separate components: read-only fields are not asked for.
    "COMPONENT_SPLIT_REQUEST": True,
}

# Celery: Redis is only the broker; every result lives in the database (runs.EngineRun).
# Without REDIS_URL the broker is kombu's filesystem transport under var/, which needs no server.
REDIS_URL = env("REDIS_URL", default="")
CELERY_BROKER_URL = env("CELERY_BROKER_URL", default=REDIS_URL or "filesystem://")
# Engine runs are bounded: the soft limit fails the run with a reason, the hard limit kills it.
CELERY_TASK_SOFT_TIME_LIMIT = env.int("CELERY_TASK_SOFT_TIME_LIMIT", default=300)
CELERY_TASK_TIME_LIMIT = env.int("CELERY_TASK_TIME_LIMIT", default=360)
# Each worker process starts chromium (kaleido) and WeasyPrint when it starts (reports/apps.py).
REPORTS_WARM_PDF_TOOLS = env.bool("REPORTS_WARM_PDF_TOOLS", default=True)
# Build the engine's validation table (evidence grades) when a web or worker process starts.
VALIDATION_WARM = env.bool("VALIDATION_WARM", default=True)
# The run reaper (`manage.py reap_runs --every N`, started by `bin/up worker`): the database is
# the outbox, the broker only a doorbell. See studio.runs.services.runs_reap.
RUNS_REAPER_INTERVAL_S = env.int("RUNS_REAPER_INTERVAL_S", default=30)
# A running run's worker writes heartbeat_at this often; a heartbeat older than the stale age
# means its worker died (SIGKILL, OOM, lost host).
RUNS_HEARTBEAT_INTERVAL_S = env.float("RUNS_HEARTBEAT_INTERVAL_S", default=10)
RUNS_HEARTBEAT_STALE_S = env.int("RUNS_HEARTBEAT_STALE_S", default=60)
# Grace on top of the hard time limit before the reaper calls a running run over time.
RUNS_TIME_LIMIT_GRACE_S = env.int("RUNS_TIME_LIMIT_GRACE_S", default=30)
# A queued run whose message was never sent is sent again after this long (the commit hook
# normally sends it at once); one sent but not started by a worker after RUNS_RESEND_AFTER_S is
# presumed lost (a broker restart) and sent again; after RUNS_QUEUE_MAX_WAIT_S it fails.
RUNS_UNSENT_GRACE_S = env.int("RUNS_UNSENT_GRACE_S", default=5)
RUNS_RESEND_AFTER_S = env.int("RUNS_RESEND_AFTER_S", default=120)
RUNS_QUEUE_MAX_WAIT_S = env.int("RUNS_QUEUE_MAX_WAIT_S", default=3600)
# A run whose worker died or which ran over time is retried automatically up to this many
# attempts in all; then it stays failed, with its reason and a Retry button.
RUNS_MAX_ATTEMPTS = env.int("RUNS_MAX_ATTEMPTS", default=3)
# Design sweeps: a chunk is sized to take about SWEEP_CHUNK_TARGET_S of engine time (1-30 s);
# a chunk running longer than SWEEP_CHUNK_STALE_S lost its worker, and a sweep with no chunk
# finished for that long lost messages: the reaper sends them again (studio.runs.sweeps).
SWEEP_CHUNK_TARGET_S = env.float("SWEEP_CHUNK_TARGET_S", default=5.0)
SWEEP_CHUNK_STALE_S = env.int("SWEEP_CHUNK_STALE_S", default=120)
# At least this many chunks for a large sweep, so that every worker gets a share.
SWEEP_MIN_CHUNKS = env.int("SWEEP_MIN_CHUNKS", default=8)
CELERY_BROKER_TRANSPORT_OPTIONS = (
    {
        "data_folder_in": str(VAR_DIR / "broker" / "out"),
        "data_folder_out": str(VAR_DIR / "broker" / "out"),
        "processed_folder": str(VAR_DIR / "broker" / "processed"),
        "store_processed": False,
    }
    if CELERY_BROKER_URL.startswith("filesystem")
    else {
        # acks_late: an unacknowledged message comes back after the visibility timeout, so it
        # must outlast the longest a task may run (its hard limit) or a running task would be
        # delivered twice; beyond that the reaper, not the broker, rescues runs.
        "visibility_timeout": CELERY_TASK_TIME_LIMIT + RUNS_TIME_LIMIT_GRACE_S,
        "socket_connect_timeout": 3,
    }
)
# kombu's filesystem transport expects its folders to exist (created here, not in a Celery
# signal: reading the app's configuration from on_configure recurses).
for _folder in (
    CELERY_BROKER_TRANSPORT_OPTIONS.get("data_folder_in", ""),
    CELERY_BROKER_TRANSPORT_OPTIONS.get("processed_folder", ""),
):
    if _folder:
        Path(_folder).mkdir(parents=True, exist_ok=True)
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Sending a run's message: a few quick tries, then the run stays queued-not-sent for the
# reaper; a web request never waits long on (or fails with) an unavailable broker.
CELERY_TASK_PUBLISH_RETRY = True
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 2,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.5,
}
CELERY_BROKER_CONNECTION_TIMEOUT = 3
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

EXAMPLES_DIR = BASE_DIR / "examples"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("DJANGO_LOG_LEVEL", default="INFO")},
    # django-axes logs every log-in at INFO; its warnings (failures, lockouts) are enough.
    "loggers": {"axes": {"level": env("AXES_LOG_LEVEL", default="WARNING")}},
}
