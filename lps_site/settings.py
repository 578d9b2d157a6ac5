"""LPS settings: every deploy difference is an environment variable (a `.env` file is read when present)."""

from datetime import timedelta
from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

from lps_site import embedded_pg

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

DEBUG = env.bool("DEBUG", default=False)
# Production sets SECRET_KEY; a local machine without one gets a random key kept under .lps/.
SECRET_KEY = env.str("SECRET_KEY", default="") or embedded_pg.local_secret_key()
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    # The operators' console. First, because the template loader searches apps in this order and its
    # admin/base_site.html must win over the admin's own; its admin module imports the admin modules it extends
    # (jobs, search), so it does not need to come after them.
    "console",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    # Registers OpClass for index expressions (the trigram index of the job lookup, search migration 0003).
    "django.contrib.postgres",
    # Throttles admin logins (see "Admin logins" below); its attempts and lockouts show in the admin.
    "axes",
    "jobs",
    "search",
    "negative_cache",
    # Shops' and operators' corrections of matches (SPEC §10): above search, below api and console.
    "corrections",
    "watches",
    "api",
]

MIDDLEWARE = [
    # First, so that on /v1/ paths even a bad Host or a failure in a later middleware answers as the envelope.
    "api.middleware.ApiEnvelopeMiddleware",
    # HTTP requests by view and status, and their latency (django-prometheus); this one and
    # HttpMetricsMiddleware wrap everything but the envelope and axes, so they time nearly the whole request.
    "django_prometheus.middleware.PrometheusBeforeMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Sessions, users and messages as Django's own, but passing API paths (/v1/) straight through: the API
    # authenticates by key and has no use for them (lps_site/browser_middleware.py). CSRF and X-Frame-Options keep
    # Django's own names: check --deploy finds them by name (CSRF_COOKIE_SECURE, X_FRAME_OPTIONS), and on an API
    # path they cost a few attribute look-ups.
    "lps_site.browser_middleware.BrowserSessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "lps_site.browser_middleware.BrowserAuthenticationMiddleware",
    "lps_site.browser_middleware.BrowserMessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # The admin's Content-Security-Policy, with a nonce for the console's inline blocks (none on API paths).
    "console.content_security.ContentSecurityPolicyMiddleware",
    "lps_site.http_metrics.HttpMetricsMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into the lockout page. Left as it is on API paths: it
    # costs one attribute look-up there, and axes's system check asks for this very name.
    "axes.middleware.AxesMiddleware",
]

AUTHENTICATION_BACKENDS = [
    # First, so that a locked-out address or user is refused before any password is checked.
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

ROOT_URLCONF = "lps_site.urls"
WSGI_APPLICATION = "lps_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
            # `|won` and `|when` in every template: the admin's prices and dates one way (lps_site/admin_formatting.py).
            "builtins": ["lps_site.template_filters"],
        },
    },
]

# --- Database -------------------------------------------------------------------------------------------
# DATABASE_URL unset → the project's embedded PostgreSQL (manage.py and bin/ scripts start it).
DATABASES = {"default": env.db("DATABASE_URL", default=embedded_pg.url())}
DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("DATABASE_CONN_MAX_AGE", default=60))
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
# Django's PostgreSQL backend, its health check read off the socket instead of a SELECT 1 on every request.
DATABASES["default"]["ENGINE"] = "lps_site.postgres_backend"
DATABASES["default"].setdefault("OPTIONS", {}).setdefault("connect_timeout", 5)
# The statements every API request runs (its key's admission, a job's read) prepared once per connection, not
# planned on each run (lps_site/postgres_backend). Off behind a pooler that cannot keep a session's prepared
# statements: PgBouncer in transaction mode before 1.21, or without max_prepared_statements.
LPS_DATABASE_PREPARED_STATEMENTS = env.bool("LPS_DATABASE_PREPARED_STATEMENTS", default=True)
# Parallel test runs on one server (CI, several developers) each get their own test database.
DATABASES["default"]["TEST"] = {"NAME": "test_lps" + env.str("LPS_TEST_DB_SUFFIX", default="")}
if env.str("DATABASE_REPLICA_URL", default=""):
    DATABASES["replica"] = env.db("DATABASE_REPLICA_URL")
    DATABASES["replica"]["CONN_HEALTH_CHECKS"] = True
    DATABASES["replica"]["ENGINE"] = "lps_site.postgres_backend"
    DATABASES["replica"]["TEST"] = {"MIRROR": "default"}
DATABASE_ROUTERS = ["lps_site.db_router.ObservingReadsRouter"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
# The admin's dates one way (2026-12-02 15:04), whatever column shows them (lps_site/formats/en/formats.py).
FORMAT_MODULE_PATH = ["lps_site.formats"]
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
# Project-wide static files (vendored assets), when there are any.
STATICFILES_DIRS = [path for path in [BASE_DIR / "static"] if path.is_dir()]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = DEBUG
# The API caps request bodies itself (413 with a result code); this is Django's outer guard.
DATA_UPLOAD_MAX_MEMORY_SIZE = 1024 * 1024

# --- Production over HTTPS -------------------------------------------------------------------------------
# LPS_HTTPS=true: served over HTTPS behind a proxy that terminates TLS and sets X-Forwarded-Proto (see the
# production environment of docs/operations.md). `manage.py check --deploy` is clean with it.
LPS_HTTPS = env.bool("LPS_HTTPS", default=False)
if LPS_HTTPS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    # Load balancers probe over plain HTTP inside the network.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]
    SECURE_HSTS_SECONDS = env.int("LPS_HSTS_SECONDS", default=365 * 24 * 3600)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("LPS_HSTS_INCLUDE_SUBDOMAINS", default=True)
    SECURE_HSTS_PRELOAD = env.bool("LPS_HSTS_PRELOAD", default=True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True

# --- Admin logins ---------------------------------------------------------------------------------------
# django-axes: after LPS_LOGIN_FAILURE_LIMIT failed logins from one address, or for one user name, that
# address or user is locked out for LPS_LOGIN_COOLOFF_MINUTES. Operators see and delete the attempts in the
# admin ("Access attempts"); deleting one lifts its lockout at once.
AXES_FAILURE_LIMIT = env.int("LPS_LOGIN_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.float("LPS_LOGIN_COOLOFF_MINUTES", default=15))
# Two separate counters: one per address (one attacker, many names) and one per user (many addresses, one name).
AXES_LOCKOUT_PARAMETERS = ["ip_address", "username"]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "admin/lockout.html"
# How many proxies in front of LPS append to X-Forwarded-For (0: clients connect directly); the throttle counts
# the address they vouch for, not the last proxy's (lps_site/client_address.py).
LPS_TRUSTED_PROXIES = env.int("LPS_TRUSTED_PROXIES", default=0)
AXES_CLIENT_IP_CALLABLE = "lps_site.client_address.client_address"

# plain: one line of text per record (the default); json: one JSON object per line, for a log pipeline. A job's
# lines carry job_id, attempt, job_type and worker_id either way (jobs/log_context.py).
LPS_LOG_FORMAT = env.str("LPS_LOG_FORMAT", default="plain")
if LPS_LOG_FORMAT not in ("plain", "json"):
    raise ImproperlyConfigured(f"LPS_LOG_FORMAT must be plain or json, not {LPS_LOG_FORMAT!r}")
LOG_LINE = "%(asctime)s %(levelname)s %(name)s %(message)s"
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"job": {"()": "jobs.log_context.JobContextFilter"}},
    "formatters": {
        "plain": {"()": "jobs.log_context.PlainFormatter", "format": LOG_LINE},
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": LOG_LINE,
            "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
            "json_ensure_ascii": False,
        },
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": LPS_LOG_FORMAT, "filters": ["job"]}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    # axes announces its configuration and every login at INFO; lockouts (WARNING) are what operators need.
    "loggers": {"django.db.backends": {"level": "WARNING"}, "axes": {"level": "WARNING"}},
}

# --- Queue ----------------------------------------------------------------------------------------------
LPS_LEASE_SECONDS = env.int("LPS_LEASE_SECONDS", default=60)
LPS_POLL_INTERVAL = env.float("LPS_POLL_INTERVAL", default=5.0)
# Connection poolers in transaction mode cannot LISTEN: poll only.
LPS_WORKER_POLL_ONLY = env.bool("LPS_WORKER_POLL_ONLY", default=False)
LPS_SEARCH_CONCURRENCY = env.int("LPS_SEARCH_CONCURRENCY", default=2)
LPS_OUTBOX_CONCURRENCY = env.int("LPS_OUTBOX_CONCURRENCY", default=8)
LPS_SEARCH_DEADLINE_SECONDS = env.float("LPS_SEARCH_DEADLINE_SECONDS", default=300.0)
LPS_OUTBOX_DEADLINE_SECONDS = env.float("LPS_OUTBOX_DEADLINE_SECONDS", default=30.0)
LPS_SHUTDOWN_GRACE_SECONDS = env.float("LPS_SHUTDOWN_GRACE_SECONDS", default=25.0)
LPS_DONE_RETENTION_DAYS = env.int("LPS_DONE_RETENTION_DAYS", default=7)
LPS_DEAD_RETENTION_DAYS = env.int("LPS_DEAD_RETENTION_DAYS", default=30)
LPS_REAPER_INTERVAL = env.float("LPS_REAPER_INTERVAL", default=30.0)

# --- Metrics --------------------------------------------------------------------------------------------
# The address `runworker --metrics-port` and `runreaper --metrics-port` listen on: their port has no key, so it
# stays on this machine unless the deploy names a private interface its Prometheus reaches.
LPS_METRICS_BIND = env.str("LPS_METRICS_BIND", default="127.0.0.1")
# Latency buckets of django-prometheus's HTTP histograms, in seconds (a 500-product POST takes ~50 ms).
PROMETHEUS_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, float("inf"))

# --- Search ---------------------------------------------------------------------------------------------
LPS_COUPANG_URL = env.str("LPS_COUPANG_URL", default="https://www.coupang.com")
LPS_CHROMIUM = env.str("LPS_CHROMIUM", default="")
LPS_PROXIES = env.list("LPS_PROXIES", default=[])
LPS_PROXY_USD_PER_GB = env.float("LPS_PROXY_USD_PER_GB", default=0.0)
LPS_SESSION_REQUEST_BUDGET = env.int("LPS_SESSION_REQUEST_BUDGET", default=50)
LPS_BROWSER_RECYCLE_PAGES = env.int("LPS_BROWSER_RECYCLE_PAGES", default=500)
# True: read a result page from its response, before the tab parses it; False: once the tab has parsed it.
LPS_READ_PAGE_AS_SERVED = env.bool("LPS_READ_PAGE_AS_SERVED", default=True)
LPS_NAVIGATION_TIMEOUT_SECONDS = env.float("LPS_NAVIGATION_TIMEOUT_SECONDS", default=30.0)
LPS_MAX_ROUNDS = env.int("LPS_MAX_ROUNDS", default=3)
LPS_NEGATIVE_CACHE_TTL_SECONDS = env.int("LPS_NEGATIVE_CACHE_TTL_SECONDS", default=24 * 3600)
LPS_SNAPSHOT_DIR = Path(env.str("LPS_SNAPSHOT_DIR", default=str(BASE_DIR / ".lps" / "snapshots")))
LPS_SNAPSHOT_RETENTION_DAYS = env.int("LPS_SNAPSHOT_RETENTION_DAYS", default=7)
# An IP session still open this long after it started belongs to a worker that died (kill -9, machine lost).
LPS_ABANDONED_SESSION_HOURS = env.int("LPS_ABANDONED_SESSION_HOURS", default=24)

# --- Naver Shopping (configured exactly when both credentials are set) -----------------------------------------
NAVER_CLIENT_ID = env.str("NAVER_CLIENT_ID", default="")
NAVER_CLIENT_SECRET = env.str("NAVER_CLIENT_SECRET", default="")
LPS_NAVER_URL = env.str("LPS_NAVER_URL", default="https://openapi.naver.com")
# Calls a day across every worker (Naver's own limit is 25,000 a day per application, reset at 00:00 KST).
LPS_NAVER_DAILY_CALLS = env.int("LPS_NAVER_DAILY_CALLS", default=25_000)
LPS_NAVER_TIMEOUT_SECONDS = env.float("LPS_NAVER_TIMEOUT_SECONDS", default=10.0)

# --- LLM (on exactly when OPENAI_API_KEY is set) -------------------------------------------------------
OPENAI_API_KEY = env.str("OPENAI_API_KEY", default="")
OPENAI_BASE_URL = env.str("OPENAI_BASE_URL", default="") or None
LPS_JUDGE_MODEL = env.str("LPS_JUDGE_MODEL", default="gpt-4o-mini")
LPS_KEYWORD_MODEL = env.str("LPS_KEYWORD_MODEL", default="gpt-4o-mini")
# A model's verdict below this confidence goes into the result's `review` (search/review.py), and so many items at most.
LPS_REVIEW_LOW_CONFIDENCE = env.float("LPS_REVIEW_LOW_CONFIDENCE", default=0.7)
LPS_REVIEW_ITEMS = env.int("LPS_REVIEW_ITEMS", default=5)
# json_schema: strict structured outputs (OpenAI, vLLM, llama.cpp's server, Ollama); json_object: JSON mode only,
# the answer validated by LPS (docs/configuration.md).
LPS_LLM_OUTPUT_MODE = env.str("LPS_LLM_OUTPUT_MODE", default="json_schema")
LPS_AI_INPUT_USD_PER_1M_TOKENS = env.float("LPS_AI_INPUT_USD_PER_1M_TOKENS", default=0.15)
LPS_AI_OUTPUT_USD_PER_1M_TOKENS = env.float("LPS_AI_OUTPUT_USD_PER_1M_TOKENS", default=0.60)
LPS_OPENAI_TIMEOUT_SECONDS = env.float("LPS_OPENAI_TIMEOUT_SECONDS", default=30.0)
LPS_OPENAI_MAX_RETRIES = env.int("LPS_OPENAI_MAX_RETRIES", default=2)

# --- API ------------------------------------------------------------------------------------------------
LPS_ALLOW_PRIVATE_CALLBACKS = env.bool("LPS_ALLOW_PRIVATE_CALLBACKS", default=False)
LPS_API_RATE_LIMIT_PER_MINUTE = env.int("LPS_API_RATE_LIMIT_PER_MINUTE", default=600)
# Wrong API keys one client address may send in any 60 seconds before its keyed requests are 429 (0: no limit).
LPS_API_KEY_FAILURES_PER_MINUTE = env.int("LPS_API_KEY_FAILURES_PER_MINUTE", default=20)
LPS_API_MAX_PRODUCTS = env.int("LPS_API_MAX_PRODUCTS", default=1000)
LPS_WEBHOOK_TIMEOUT_SECONDS = env.float("LPS_WEBHOOK_TIMEOUT_SECONDS", default=10.0)
# Webhook deliveries retry longer than searches: a client's endpoint may be down for a while.
LPS_OUTBOX_MAX_ATTEMPTS = env.int("LPS_OUTBOX_MAX_ATTEMPTS", default=8)

# Watches (watches/): the scheduler's jitter and catch-up, reuse of fresh results, event delivery.
# A due time moves by at most this share of the interval (and at most 60 s), so runs of one interval drift apart.
LPS_WATCH_JITTER_FRACTION = env.float("LPS_WATCH_JITTER_FRACTION", default=0.01)
# A run claimed later than this after its due time (an outage) is held back by a share of the spread window.
LPS_WATCH_CATCHUP_AFTER_SECONDS = env.float("LPS_WATCH_CATCHUP_AFTER_SECONDS", default=300.0)
LPS_WATCH_CATCHUP_SPREAD_SECONDS = env.float("LPS_WATCH_CATCHUP_SPREAD_SECONDS", default=1800.0)
# 30 min: half the shortest interval (1 h), so a watch's consecutive runs never share one search, while shops
# watching one product within the same half hour pay for one.
LPS_RESULT_REUSE_SECONDS = env.int("LPS_RESULT_REUSE_SECONDS", default=1800)
LPS_WATCH_EVENT_GIVE_UP_SECONDS = env.int("LPS_WATCH_EVENT_GIVE_UP_SECONDS", default=3 * 86400)
LPS_WATCH_EVENT_MAX_ATTEMPTS = env.int("LPS_WATCH_EVENT_MAX_ATTEMPTS", default=1000)
LPS_API_MAX_WATCHES = env.int("LPS_API_MAX_WATCHES", default=1000)
# A spreadsheet of watches (POST /v1/lps/watches as text/csv): a catalogue of thousands of rows in one upload.
LPS_API_MAX_CSV_WATCHES = env.int("LPS_API_MAX_CSV_WATCHES", default=10_000)
LPS_API_MAX_CSV_BYTES = env.int("LPS_API_MAX_CSV_BYTES", default=8 * 1024 * 1024)
