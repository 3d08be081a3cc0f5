from django.urls import path

from traces import api, feedback_api

urlpatterns = [
    path("traces/", api.TraceListCreateApi.as_view(), name="api-traces"),
    path("traces/bulk/", api.TraceBulkImportApi.as_view(), name="api-traces-bulk"),
    path("traces/<int:trace_id>/", api.TraceDetailApi.as_view(), name="api-trace-detail"),
    path("traces/<int:trace_id>/spans/", api.TraceSpansApi.as_view(), name="api-trace-spans"),
    path("feedback/", feedback_api.FeedbackApi.as_view(), name="api-feedback"),
]
