from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from accounts import schema as token_schema  # noqa: F401  (describes the token in the schema)
from guardrails import urls as guardrails_urls
from insights import views as insights_views
from judges import urls as judges_urls
from traces.api import OtlpLogExportApi, OtlpTraceExportApi

api_patterns = [
    path("", include("accounts.api_urls")),
    path("", include("traces.api_urls")),
    path("", include("explorer.api_urls")),
    path("", include("judges.api_urls")),
    path("", include("guardrails.api_urls")),
    path("", include("reviews.api_urls")),
    path("", include("golden.api_urls")),
    path("", include("webhooks.api_urls")),
    path("", include("insights.api_urls")),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
]

urlpatterns = [
    # First: the busiest routes, tried before every other pattern on each request.
    path("v1/traces", OtlpTraceExportApi.as_view(), name="otlp-traces"),
    path("v1/logs", OtlpLogExportApi.as_view(), name="otlp-logs"),
    # Where the Langfuse SDK exports its spans when LANGFUSE_HOST names evalsite.
    path("api/public/otel/v1/traces", OtlpTraceExportApi.as_view(), name="otlp-traces-langfuse"),
    path("", insights_views.overview, name="overview"),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/", include(api_patterns)),
    path("accounts/", include("accounts.urls")),
    # Both under /traces/: explorer's pages composed from every stage (explorer:), and the
    # pages of a trace's own data (traces:). Their paths do not overlap.
    path("traces/", include("explorer.urls")),
    path("traces/", include("traces.urls")),
    # The guardrails page keeps its place and name among the judges pages.
    path(
        "judges/",
        include(([*judges_urls.urlpatterns, *guardrails_urls.urlpatterns], "judges")),
    ),
    path("reviews/", include("reviews.urls")),
    path("golden/", include("golden.urls")),
    path("webhooks/", include("webhooks.urls")),
    path("insights/", include("insights.urls")),
    path("admin/", admin.site.urls),
]

handler500 = "evalsite.views.server_error"
