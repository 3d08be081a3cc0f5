from django.urls import path

from traces import api, deletion_api, feedback_api, masking_api

urlpatterns = [
    path("traces/", api.TraceListCreateApi.as_view(), name="api-traces"),
    path("traces/bulk/", api.TraceBulkImportApi.as_view(), name="api-traces-bulk"),
    path("traces/delete/", deletion_api.TracesDeleteApi.as_view(), name="api-traces-delete"),
    path(
        "traces/deletions/",
        deletion_api.TraceDeletionListCreateApi.as_view(),
        name="api-trace-deletions",
    ),
    path(
        "traces/deletions/<int:deletion_id>/",
        deletion_api.TraceDeletionDetailApi.as_view(),
        name="api-trace-deletion",
    ),
    path(
        "traces/deletions/<int:deletion_id>/stop/",
        deletion_api.TraceDeletionStopApi.as_view(),
        name="api-trace-deletion-stop",
    ),
    path("traces/<int:trace_id>/", api.TraceDetailApi.as_view(), name="api-trace-detail"),
    path("traces/<int:trace_id>/spans/", api.TraceSpansApi.as_view(), name="api-trace-spans"),
    path("feedback/", feedback_api.FeedbackApi.as_view(), name="api-feedback"),
    path(
        "projects/<slug:slug>/masking-rules/",
        masking_api.MaskingRulesApi.as_view(),
        name="api-masking-rules",
    ),
    path(
        "projects/<slug:slug>/masking-rules/<int:rule_id>/",
        masking_api.MaskingRuleApi.as_view(),
        name="api-masking-rule",
    ),
    path(
        "projects/<slug:slug>/masking-changes/",
        masking_api.MaskingChangesApi.as_view(),
        name="api-masking-changes",
    ),
    path(
        "projects/<slug:slug>/masking-preview/",
        masking_api.MaskingPreviewApi.as_view(),
        name="api-masking-preview",
    ),
]
