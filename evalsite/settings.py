"""evalsite settings. Everything comes from the environment, with safe defaults (README)."""

import secrets
from datetime import timedelta
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from core.env import envbool, envfloat, envint, envlist, envnetworks, envsecret, envstr
from evalsite.caches import caches_from_environment
from evalsite.databases import databases_from_environment, prepared_statements_allowed

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(envstr("EVALSITE_VAR_DIR", str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)

# Production mode refuses insecure defaults; embedded mode (the default) runs on one machine.
PRODUCTION = envbool("EVALSITE_PRODUCTION", False)
DEBUG = envbool("DEBUG", False)


def _secret_key() -> str:
    if key := envsecret("SECRET_KEY"):
        return key
    if PRODUCTION:
        raise ImproperlyConfigured("SECRET_KEY must be set when EVALSITE_PRODUCTION is on.")
    key_file = VAR_DIR / ".secret_key"
    if not key_file.exists():
        key_file.write_text(secrets.token_urlsafe(50))
        key_file.chmod(0o600)
    return key_file.read_text().strip()


SECRET_KEY = _secret_key()
ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", [])

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
    "django_htmx",
    "django_filters",
    "csp",
    "axes",
    "accounts",
    "traces",
    "metrics",
    "judges",
    "guardrails",
    "reviews",
    "golden",
    "webhooks",
    "insights",
    "explorer",
    "demo",
    "evalsite",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "evalsite.middleware.query_nul_refusal_middleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "evalsite.middleware.PageLoginRequiredMiddleware",
    "evalsite.middleware.LazyMessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "evalsite.middleware.SettingsPolicyCSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, as django-axes asks: it answers a locked-out login with 429.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "evalsite.urls"
WSGI_APPLICATION = "evalsite.wsgi.application"

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
                "evalsite.context_processors.site",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------------
DATABASE_URL = envstr("DATABASE_URL")
DATABASES = databases_from_environment(DATABASE_URL, VAR_DIR)
# Ingest's short per-request statements stay prepared on PostgreSQL (core/prepared_sql.py).
DB_PREPARED_STATEMENTS = prepared_statements_allowed()
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Auth -----------------------------------------------------------------------------------
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "overview"
LOGOUT_REDIRECT_URL = "login"
# Login throttling (django-axes, accounts/login_lockout.py): after LOGIN_FAILURE_LIMIT wrong
# passwords an account is locked for LOGIN_LOCKOUT_MINUTES; a client address only after
# LOGIN_ADDRESS_FAILURE_LIMIT. An admin unlocks by deleting access attempts in the admin or
# with `manage.py axes_reset_username NAME`. docs/lockouts.md says how this works behind a proxy.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_HANDLER = "accounts.login_lockout.LoginLockoutHandler"
AXES_FAILURE_LIMIT = envint("LOGIN_FAILURE_LIMIT", 5)
LOGIN_ADDRESS_FAILURE_LIMIT = envint("LOGIN_ADDRESS_FAILURE_LIMIT", 100)
AXES_COOLOFF_TIME = timedelta(minutes=envint("LOGIN_LOCKOUT_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_CLIENT_IP_CALLABLE = "accounts.client_address.client_address"
AXES_RESET_ON_SUCCESS = True
AXES_VERBOSE = False
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
# Proxies (addresses or networks) whose X-Forwarded-For names the client; none by default.
TRUSTED_PROXIES = envnetworks("TRUSTED_PROXIES")
# The same invalid API token from one client address, this many times: 429 until the lockout
# time has passed (accounts/token_failures.py). A token that verifies is never refused.
API_TOKEN_FAILURE_LIMIT = envint("API_TOKEN_FAILURE_LIMIT", 20)
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATICFILES_FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
    "evalsite.staticfinders.PlotlyFinder",
]
STATIC_ROOT = BASE_DIR / "staticfiles"
STATIC_ROOT.mkdir(exist_ok=True)
# Embedded mode serves static files straight from the app folders, without collectstatic.
WHITENOISE_USE_FINDERS = not PRODUCTION
WHITENOISE_AUTOREFRESH = not PRODUCTION
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if PRODUCTION
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
# Uploads are parsed in memory up to this size; larger request bodies get a 413.
DATA_UPLOAD_MAX_MEMORY_SIZE = envint("MAX_REQUEST_BYTES", 20 * 1024 * 1024)
FILE_UPLOAD_MAX_MEMORY_SIZE = DATA_UPLOAD_MAX_MEMORY_SIZE

# --- Security -------------------------------------------------------------------------------
SESSION_COOKIE_HTTPONLY = True
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
SECURE_REFERRER_POLICY = "same-origin"
if PRODUCTION:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True

# Strict CSP: scripts only from our own origin, never inline. Plotly sets element styles.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "frame-ancestors": ["'none'"],
        "form-action": ["'self'"],
    }
}

# --- API ------------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "core.negotiation.AnythingFirstContentNegotiation",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "core.pagination.ApiPagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "core.api_errors.exception_handler",
    "UNAUTHENTICATED_USER": None,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "evalsite API",
    "DESCRIPTION": "Ingest agent traces, run LLM judges, review and curate golden datasets.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # The schema and its docs show every route: for people who have logged in.
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Several models have a `status`; each choice set gets its own name in the schema.
    "ENUM_NAME_OVERRIDES": {
        "JudgmentStatusEnum": "judges.models.JudgmentStatus",
        "ReviewStatusEnum": "reviews.models.ReviewStatus",
        "WebhookDeliveryStatusEnum": "webhooks.models.DeliveryStatus",
        "RubricVersionStatusEnum": "judges.models.RubricVersionStatus",
        "JudgeRunStatusEnum": "judges.models.JudgeRunStatus",
        "MaskingRuleKindEnum": "traces.models.MaskingRule.Kind",
        "MaskingRuleActionEnum": "traces.models.MaskingRule.Action",
        "YesNoFilterEnum": "golden.serializers.YES_NO",
    },
}

# --- Celery ---------------------------------------------------------------------------------
REDIS_URL = envstr("REDIS_URL")
BROKER_DIR = VAR_DIR / "broker"
if REDIS_URL:
    CELERY_BROKER_URL, CELERY_BROKER_TRANSPORT = REDIS_URL, "evalsite.broker_redis:Transport"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": 3600,
        # Connections a worker's channel may open, made as needed: on the gevent pool every task
        # acknowledges its own message, and kombu's default of 10 refused the eleventh at once
        # (a message left unacknowledged holds a place in the prefetch window until restart).
        "max_connections": envint("BROKER_MAX_CONNECTIONS", 200),
    }
else:
    # Embedded mode: kombu's filesystem transport needs no server; a real worker consumes it.
    for sub in ("queue", "processed", "control"):
        (BROKER_DIR / sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_URL = "filesystem://"
    CELERY_BROKER_TRANSPORT = "evalsite.broker:Transport"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "processed_folder": str(BROKER_DIR / "processed"),
        # Broadcast (pidbox) exchanges; the default would be ./control in the working dir.
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
    }
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# A worker reserves only the messages it can run now: a judge message holds its slot for a call
# of seconds, and one reserved beyond that waited behind it while another worker sat idle.
CELERY_WORKER_PREFETCH_MULTIPLIER = envint("CELERY_PREFETCH_MULTIPLIER", 1)
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
CELERY_TASK_ALWAYS_EAGER = envbool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_BEAT_SCHEDULE = {
    # A trace is judged once complete: its root ended and no span came for the settle time.
    "trace-settle-sweep": {"task": "traces.tasks.trace_settle_sweep_task", "schedule": 10.0},
    # Search documents of recent traces whose spans changed and have been quiet for a moment;
    # once an hour every trace is checked, for spans that came later than that.
    "search-documents-refresh": {
        "task": "traces.tasks.search_documents_refresh_task",
        "schedule": 10.0,
        "args": (3600,),
    },
    "search-documents-refresh-all": {
        "task": "traces.tasks.search_documents_refresh_task",
        "schedule": 3600.0,
    },
    # Traces past their project's retention time go, a batch at a time (traces/retention.py).
    "trace-retention": {"task": "traces.tasks.trace_retention_task", "schedule": 3600.0},
    # Background trace deletions whose message was lost go on (traces/deletion_jobs.py).
    "trace-deletions-resume": {
        "task": "traces.tasks.trace_deletions_resume_task",
        "schedule": 60.0,
    },
    # Sessions quiet for their rubric's idle time are judged whole (judges/session_online.py).
    "sessions-judge-idle": {"task": "judges.tasks.sessions_judge_idle_task", "schedule": 60.0},
    # Judge passes whose worker died (or whose message was lost) are enqueued again.
    "judgment-requeue-stale": {
        "task": "judges.tasks.judgment_requeue_stale_task",
        "schedule": 30.0,
    },
}

# --- Judging --------------------------------------------------------------------------------
ANTHROPIC_API_KEY = envsecret("ANTHROPIC_API_KEY")
ANTHROPIC_BASE_URL = envstr("ANTHROPIC_BASE_URL")
SIMULATED_JUDGE_PORT = envint("SIMULATED_JUDGE_PORT", 8765)
# A second provider for judge configs that choose it: OpenAI or any compatible server.
OPENAI_API_KEY = envsecret("OPENAI_API_KEY")
OPENAI_BASE_URL = envstr("OPENAI_BASE_URL")
# Without a key the judge is the local simulator, and every page says scores are simulated.
JUDGE_SIMULATED = not (ANTHROPIC_API_KEY or OPENAI_API_KEY) or envbool("JUDGE_SIMULATED", False)
if JUDGE_SIMULATED and not ANTHROPIC_BASE_URL:
    ANTHROPIC_BASE_URL = f"http://127.0.0.1:{SIMULATED_JUDGE_PORT}"
if JUDGE_SIMULATED and not OPENAI_BASE_URL:
    OPENAI_BASE_URL = f"http://127.0.0.1:{SIMULATED_JUDGE_PORT}/v1"
JUDGE_MODEL = envstr("JUDGE_MODEL", "claude-sonnet-4-5")
# A session is judged online once no trace of it arrived for this long (a rubric may say).
SESSION_IDLE_MINUTES = envint("SESSION_IDLE_MINUTES", 30)
if SESSION_IDLE_MINUTES < 1:
    raise ImproperlyConfigured("SESSION_IDLE_MINUTES must be at least 1")
# A rubric template's render is bounded: output characters (any value it builds) and seconds.
RUBRIC_RENDER_MAX_CHARS = envint("RUBRIC_RENDER_MAX_CHARS", 1_000_000)
RUBRIC_RENDER_SECONDS = envfloat("RUBRIC_RENDER_SECONDS", 2.0)
# Simulated scores cost nothing and are labelled everywhere, so by default the demo judges live
# traffic before calibration; a real judge waits until people have measured it.
JUDGE_ONLINE_BEFORE_CALIBRATION = envbool("JUDGE_ONLINE_BEFORE_CALIBRATION", JUDGE_SIMULATED)
JUDGE_TIMEOUT_SECONDS = envfloat("JUDGE_TIMEOUT_SECONDS", 60.0)
JUDGE_MAX_RETRIES = envint("JUDGE_MAX_RETRIES", 5)
JUDGE_TRACE_TOKEN_BUDGET = envint("JUDGE_TRACE_TOKEN_BUDGET", 60000)
# USD per million tokens (input, output, cache_read, cache_write) for models whose price is not
# genai-prices' list price, e.g. a negotiated rate or a self-hosted model; others come from it.
JUDGE_PRICES: dict[str, dict[str, float]] = {}
JUDGE_RATE_LIMIT_RPM = envint("JUDGE_RATE_LIMIT_RPM", 4000)
JUDGE_RATE_LIMIT_TPM = envint("JUDGE_RATE_LIMIT_TPM", 2_000_000)
# Connections a worker process keeps to a provider: at least the calls it has in flight (its
# pool size, docs/judging.md), else calls wait for a connection and time out.
JUDGE_PROVIDER_CONNECTIONS = envint("JUDGE_PROVIDER_CONNECTIONS", 1000)
# Judge passes a message carries, run at once by the worker that takes it: 1 (a message a pass)
# suits the thread pool; with `--pool gevent`, 20 or more (docs/judging.md).
JUDGE_PASSES_PER_TASK = envint("JUDGE_PASSES_PER_TASK", 1)
TRACE_SETTLE_SECONDS = envint("TRACE_SETTLE_SECONDS", 30)
# Online judging per rule and hour judges at most this many traces of a project (0: no limit).
JUDGE_ONLINE_MAX_PER_HOUR = envint("JUDGE_ONLINE_MAX_PER_HOUR", 0)
# A provider whose last this many calls within the window all failed is skipped by online
# judging until those failures age out (0: never skipped).
JUDGE_PROVIDER_FAILING_CALLS = envint("JUDGE_PROVIDER_FAILING_CALLS", 5)
JUDGE_PROVIDER_FAILING_SECONDS = envint("JUDGE_PROVIDER_FAILING_SECONDS", 300)
# OTLP log records naming a span that has not come wait this long; then the retention job
# counts them on their project (Project.log_records_unjoined) and removes them.
PENDING_LOG_HOURS = envint("PENDING_LOG_HOURS", 24)
if PENDING_LOG_HOURS < 1:
    raise ImproperlyConfigured("PENDING_LOG_HOURS must be at least 1")
# A trace's search document is built once no span has come for this long.
SEARCH_INDEX_QUIET_SECONDS = envint("SEARCH_INDEX_QUIET_SECONDS", 5)
# Retries of transient judge errors: exponential backoff from the base, capped, with jitter.
JUDGE_RETRY_BASE_SECONDS = envfloat("JUDGE_RETRY_BASE_SECONDS", 2.0)
JUDGE_RETRY_MAX_SECONDS = envfloat("JUDGE_RETRY_MAX_SECONDS", 120.0)
# A running pass whose worker has been silent this long is taken over by a redelivery.
JUDGE_CLAIM_LEASE_SECONDS = envfloat("JUDGE_CLAIM_LEASE_SECONDS", JUDGE_TIMEOUT_SECONDS + 60.0)
# Message Batches API: how often a submitted batch is polled for results.
JUDGE_BATCH_POLL_SECONDS = envfloat("JUDGE_BATCH_POLL_SECONDS", 60.0)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": envstr("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        # The filesystem broker has no host; kombu warns about that on every publish.
        "kombu.connection": {"level": "ERROR"},
        # A 4xx answer is the client's news, not the operator's; 5xx still log with traceback.
        "django.request": {"level": "ERROR"},
        # Beat's every-few-seconds "Sending due task" lines would drown the rest at INFO.
        "celery.beat": {"level": "WARNING"},
    },
}

# --- Insights and judge calibration ---------------------------------------------------------
# The overview's aggregates are precomputed by a periodic task into a cache that web processes
# and workers share: Redis at scale, files under VAR_DIR in embedded mode.
CACHES = caches_from_environment(REDIS_URL, VAR_DIR)
SHARED_CACHE = "shared"
INSIGHTS_REFRESH_SECONDS = envint("INSIGHTS_REFRESH_SECONDS", 60)
# A snapshot older than this is rebuilt by the page itself (the worker may be down).
INSIGHTS_SNAPSHOT_MAX_AGE = envint("INSIGHTS_SNAPSHOT_MAX_AGE", 600)
# Rebuilds read only the days that changed; this often they read every day again.
INSIGHTS_FULL_REBUILD_SECONDS = envint("INSIGHTS_FULL_REBUILD_SECONDS", 6 * 3600)
CELERY_IMPORTS = ["insights.tasks"]
CELERY_BEAT_SCHEDULE["insights-overview-refresh"] = {
    "task": "insights.tasks.insights_overview_refresh_task",
    "schedule": float(INSIGHTS_REFRESH_SECONDS),
}
CELERY_BEAT_SCHEDULE["insights-agent-dashboard-refresh"] = {
    "task": "insights.tasks.insights_agent_dashboard_refresh_task",
    "schedule": float(INSIGHTS_REFRESH_SECONDS),
}
# Topics: every project's traces of the last TOPICS_WINDOW_DAYS (the newest TOPICS_MAX_TRACES)
# are grouped this often; a trace that settles in between joins the nearest topic.
TOPICS_BUILD_SECONDS = envint("TOPICS_BUILD_SECONDS", 3600)
TOPICS_WINDOW_DAYS = envint("TOPICS_WINDOW_DAYS", 30)
TOPICS_MAX_TRACES = envint("TOPICS_MAX_TRACES", 5000)
TOPICS_MAX_TOPICS = envint("TOPICS_MAX_TOPICS", 12)
TOPICS_MAX_TERMS = envint("TOPICS_MAX_TERMS", 2000)
# A short name per new topic from the judge model (the default judge config); else top terms.
TOPICS_NAMES_FROM_JUDGE = envbool("TOPICS_NAMES_FROM_JUDGE", True)
# Embeddings instead of TF-IDF where a model is set: OpenAI's embeddings API, or any compatible
# server at the base URL. Failures fall back to TF-IDF and the build says so.
TOPICS_EMBEDDING_MODEL = envstr("TOPICS_EMBEDDING_MODEL")
TOPICS_EMBEDDING_BASE_URL = envstr("TOPICS_EMBEDDING_BASE_URL")
TOPICS_EMBEDDING_API_KEY = envsecret("TOPICS_EMBEDDING_API_KEY")
TOPICS_EMBEDDING_BATCH = envint("TOPICS_EMBEDDING_BATCH", 256)
TOPICS_EMBEDDING_MAX_CHARS = envint("TOPICS_EMBEDDING_MAX_CHARS", 2000)
TOPICS_EMBEDDING_TIMEOUT_SECONDS = envfloat("TOPICS_EMBEDDING_TIMEOUT_SECONDS", 30.0)
if TOPICS_MAX_TOPICS < 2 or TOPICS_MAX_TRACES < 10:
    raise ImproperlyConfigured("TOPICS_MAX_TOPICS must be at least 2, TOPICS_MAX_TRACES 10")
CELERY_BEAT_SCHEDULE["topics-build"] = {
    "task": "insights.tasks.topics_build_task",
    "schedule": float(TOPICS_BUILD_SECONDS),
}
# A project with traces and no topics yet (a fresh install, a new project) is built within the
# minute; one query when there is none.
CELERY_BEAT_SCHEDULE["topics-build-missing"] = {
    "task": "insights.tasks.topics_build_missing_task",
    "schedule": 60.0,
}
# A live online rule that judged nothing for this long, while enough traces came that its
# sample rate should have judged JUDGING_SILENT_MIN_EXPECTED, raises an alert.
JUDGING_SILENT_MINUTES = envint("JUDGING_SILENT_MINUTES", 60)
JUDGING_SILENT_MIN_EXPECTED = envfloat("JUDGING_SILENT_MIN_EXPECTED", 3.0)
CELERY_BEAT_SCHEDULE["judging-silent-rules-check"] = {
    "task": "insights.tasks.judging_silent_rules_check_task",
    "schedule": 300.0,
}
# Review claims past their 15-minute lock are cleared so queue pages show the items as free.
CELERY_BEAT_SCHEDULE["review-locks-release"] = {
    "task": "reviews.tasks.review_locks_release_task",
    "schedule": 60.0,
}
# A judge version is approved for live traffic at this kappa against people on this many items.
CALIBRATION_KAPPA_BAR = envfloat("CALIBRATION_KAPPA_BAR", 0.6)
CALIBRATION_MIN_ITEMS = envint("CALIBRATION_MIN_ITEMS", 30)
# A calibrating version sends its first verdicts to people, then this share of the rest; the
# drift check measures the last CALIBRATION_WINDOW labels.
CALIBRATION_FIRST_SAMPLED = envint("CALIBRATION_FIRST_SAMPLED", 30)
CALIBRATION_SAMPLE_RATE = envfloat("CALIBRATION_SAMPLE_RATE", 0.10)
CALIBRATION_WINDOW = envint("CALIBRATION_WINDOW", 30)

# --- Review queue ---------------------------------------------------------------------------
# A claim holds an item this long unless the page renews it (every heartbeat); an answer can
# be undone for REVIEW_UNDO_SECONDS.
REVIEW_LOCK_SECONDS = envint("REVIEW_LOCK_SECONDS", 15 * 60)
REVIEW_HEARTBEAT_SECONDS = envint("REVIEW_HEARTBEAT_SECONDS", 60)
REVIEW_UNDO_SECONDS = envint("REVIEW_UNDO_SECONDS", 60)

# --- Trajectory red flags -------------------------------------------------------------------
# Defaults where a project's guardrail policy and the trace's own context say nothing.
TRAJECTORY_MAX_STEPS = envint("TRAJECTORY_MAX_STEPS", 30)
TRAJECTORY_LOOP_REPEATS = envint("TRAJECTORY_LOOP_REPEATS", 3)
# {tool: [tools that must be called first]}, for every project.
TRAJECTORY_TOOL_PREREQUISITES: dict[str, list[str]] = {}

# --- Webhooks -------------------------------------------------------------------------------
WEBHOOK_TIMEOUT_SECONDS = envfloat("WEBHOOK_TIMEOUT_SECONDS", 10.0)
# Exponential backoff with jitter between attempts: 30 s, 60 s, 120 s ... capped at an hour.
WEBHOOK_RETRY_BASE_SECONDS = envint("WEBHOOK_RETRY_BASE_SECONDS", 30)
WEBHOOK_RETRY_MAX_SECONDS = envint("WEBHOOK_RETRY_MAX_SECONDS", 3600)
WEBHOOK_MAX_ATTEMPTS = envint("WEBHOOK_MAX_ATTEMPTS", 8)
# Off: webhook URLs that resolve to loopback, private or link-local addresses are refused.
WEBHOOK_ALLOW_PRIVATE_TARGETS = envbool("WEBHOOK_ALLOW_PRIVATE_TARGETS", False)
CELERY_BEAT_SCHEDULE["review-backlog-check"] = {
    "task": "webhooks.tasks.review_backlog_check_task",
    "schedule": float(envint("WEBHOOK_BACKLOG_CHECK_SECONDS", 60)),
}
