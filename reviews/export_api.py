"""GET /api/export/traces/: one trace, or every trace of a trace-list filter, as JSONL or CSV."""

from django.http import StreamingHttpResponse
from django.utils import timezone
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.generics import GenericAPIView

from accounts.permissions import IsAnnotator
from core.errors import ApplicationError
from reviews.export import export_csv, export_jsonl
from traces.filters import TraceFilter
from traces.models import Trace
from traces.selectors import traces_visible

FORMATS = {
    "jsonl": ("application/x-ndjson", export_jsonl),
    "csv": ("text/csv; charset=utf-8", export_csv),
}


class TraceExportApi(GenericAPIView):
    permission_classes = [IsAnnotator]
    filter_backends = [DjangoFilterBackend]
    filterset_class = TraceFilter
    pagination_class = None

    def perform_content_negotiation(self, request, force=False):
        # `?format=` names the export's file format, not a renderer: errors answer in JSON.
        renderer = self.get_renderers()[0]
        return renderer, renderer.media_type

    def get_queryset(self):
        traces = traces_visible(self.request.user, Trace.objects.all())
        trace_id = self.request.query_params.get("trace_id")
        return traces.filter(external_id=trace_id.lower()) if trace_id else traces

    @extend_schema(
        parameters=[
            OpenApiParameter("format", str, enum=list(FORMATS), default="jsonl"),
            OpenApiParameter("trace_id", str, description="One trace by its hex id."),
        ],
        responses={
            (200, "application/x-ndjson"): OpenApiTypes.STR,
            (200, "text/csv"): OpenApiTypes.STR,
        },
        description="Streamed: a trace a line (JSONL, with spans, verdicts and both judge "
        "passes, resolutions, red flags and feedback) or a row (CSV, trace level). Any "
        "trace-list filter applies.",
    )
    def get(self, request):
        kind = request.query_params.get("format", "jsonl")
        if kind not in FORMATS:
            raise ApplicationError("format is jsonl or csv.", field="format")
        traces = self.filter_queryset(self.get_queryset())
        content_type, stream = FORMATS[kind]
        response = StreamingHttpResponse(stream(traces), content_type=content_type)
        stamp = timezone.now().strftime("%Y%m%d-%H%M")
        response["Content-Disposition"] = f'attachment; filename="traces-{stamp}.{kind}"'
        return response
