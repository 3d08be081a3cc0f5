"""Trace API: ingest (span-tree JSON, transcripts, JSONL, OTLP/HTTP) and read traces."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.http import HttpResponse
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    inline_serializer,
)
from rest_framework import serializers, status
from rest_framework.exceptions import ParseError
from rest_framework.generics import GenericAPIView, ListAPIView
from rest_framework.parsers import JSONParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.idempotency import idempotent_post
from accounts.permissions import IsAnnotator, IsCurator
from core.errors import ApplicationError
from core.pagination import ApiPagination
from traces import selectors
from traces.context_attributes import end_user_of
from traces.deletion import traces_delete_requested
from traces.filters import TraceFilter, trace_list_ordering
from traces.ingest import otlp, otlp_logs, otlp_wire
from traces.ingest.bulk_sql import SPAN_FIELDS_FROM_RECORD
from traces.ingest.jaeger import is_jaeger_export
from traces.ingest.jsonl import traces_import_jsonl
from traces.ingest.services import (
    ingest_jaeger,
    ingest_otlp,
    ingest_otlp_logs,
    ingest_payload,
)
from traces.models import TRACE_DESCRIPTION, TRACE_SPAN_TOTALS, Span, Trace
from traces.projects import PROJECT_HEADER, project_header_read, project_resolve
from traces.span_pages import (
    SPAN_PAGE_DEFAULT,
    SPAN_PAGE_MAX,
    SpanPages,
    span_limit_read,
    spans_next_url,
)

ERROR_OUT = inline_serializer(
    "ApiError",
    {
        "error": inline_serializer(
            "ApiErrorBody",
            {
                "code": serializers.CharField(),
                "message": serializers.CharField(),
                "fields": serializers.DictField(child=serializers.ListField()),
            },
        )
    },
)
ERROR_RESPONSES = {
    400: OpenApiResponse(ERROR_OUT, description="Bad input; `fields` names what was wrong."),
    401: OpenApiResponse(ERROR_OUT, description="No or unknown API token."),
    403: OpenApiResponse(
        ERROR_OUT,
        description="The token's user lacks the role, or a send-only token asked to read.",
    ),
    413: OpenApiResponse(ERROR_OUT, description="Body over the size limit."),
}


class TraceJSONParser(JSONParser):
    """JSON, with nesting too deep for the parser reported as bad input rather than a crash."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError as exc:
            raise ParseError("JSON parse error - the body is nested too deeply.") from exc


def _body_size_check(request) -> None:
    """Refuse an oversized body with 413 before reading it."""
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if length > settings.DATA_UPLOAD_MAX_MEMORY_SIZE:
        raise ApplicationError(
            f"The body is {length} bytes; the limit is {settings.DATA_UPLOAD_MAX_MEMORY_SIZE}.",
            field="body",
            code="too_large",
            status_code=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
        )


class SpanOut(serializers.ModelSerializer):
    class Meta:
        model = Span
        # The span's own stored columns, less the component it is attributed to.
        fields = [name for name in SPAN_FIELDS_FROM_RECORD if name != "component"]


class TraceOut(serializers.ModelSerializer):
    project = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    tags = serializers.SlugRelatedField(
        slug_field="name", many=True, read_only=True, help_text="The tags the agent gave it."
    )
    session = serializers.SlugRelatedField(
        slug_field="external_id",
        read_only=True,
        allow_null=True,
        help_text="The conversation id it was sent under.",
    )
    end_user = serializers.SerializerMethodField(
        help_text="The end user the agent served (user.id, enduser.id, a context's user_id); "
        '"" when none was sent. Filter with ?end_user=.'
    )

    class Meta:
        model = Trace
        fields = [
            "id",
            "project",
            "external_id",
            "session",
            *TRACE_DESCRIPTION,
            "tags",
            "end_user",
            "model",
            "source_format",
            "root_span_id",
            *TRACE_SPAN_TOTALS,
            "completed_at",
        ]

    def get_end_user(self, trace) -> str:
        listed = getattr(trace, "end_user", None)  # trace_rows' annotation
        if listed is not None or "context" in trace.get_deferred_fields():
            return listed or ""
        return end_user_of(trace.context)


class TraceDetailOut(TraceOut):
    spans = serializers.SerializerMethodField()

    class Meta(TraceOut.Meta):
        fields = [*TraceOut.Meta.fields, "context", "spans"]

    def get_spans(self, trace) -> list[dict]:
        spans = self.context.get("spans")
        return SpanOut(
            spans if spans is not None else selectors.trace_spans_ordered(trace), many=True
        ).data


class TracePagedDetailOut(TraceDetailOut):
    spans = serializers.SerializerMethodField(
        help_text="The first span_limit spans in display order; spans_next has the rest."
    )
    spans_next = serializers.SerializerMethodField(
        help_text="URL of the next page of spans (GET /api/traces/{id}/spans/), or null."
    )

    class Meta(TraceDetailOut.Meta):
        fields = [*TraceDetailOut.Meta.fields, "spans_next"]

    def get_spans_next(self, trace) -> str | None:
        return self.context.get("spans_next")


class TraceListCreateApi(GenericAPIView):
    """GET lists traces (newest first); POST stores one span-tree JSON or transcript trace, or
    every trace of a Jaeger export.

    The list's count stops at 1,000 matches (`count_is_lower_bound` then says there are more),
    as the trace list page's does: a full count of a broad search reads every match."""

    permission_classes = [IsAnnotator]
    # An agent's send-only token posts traces; reading the list needs a full token.
    send_only_methods = ("POST",)
    pagination_class = ApiPagination
    parser_classes = [TraceJSONParser]
    serializer_class = TraceOut
    filter_backends = [DjangoFilterBackend]
    filterset_class = TraceFilter

    def get_queryset(self):
        rows = selectors.trace_rows().prefetch_related("tags")
        return selectors.traces_visible(self.request.user, rows)

    @property
    def page_ordering(self) -> tuple[str, ...]:
        return trace_list_ordering(self.request.query_params.get("sort", ""))

    @extend_schema(responses=TraceOut(many=True))
    def get(self, request):
        queryset = self.filter_queryset(self.get_queryset())
        page = self.paginate_queryset(queryset)
        return self.get_paginated_response(TraceOut(page, many=True).data)

    @extend_schema(
        request=inline_serializer(
            "TraceIngest",
            {
                "format": serializers.ChoiceField(
                    ["span_tree", "anthropic", "openai"], required=False
                ),
                "project": serializers.CharField(required=False),
                "trace_id": serializers.CharField(required=False),
                "name": serializers.CharField(required=False),
                "type": serializers.CharField(required=False),
                "input": serializers.JSONField(required=False),
                "output": serializers.JSONField(required=False),
                "children": serializers.ListField(child=serializers.DictField(), required=False),
                "available_tools": serializers.ListField(required=False),
                "messages": serializers.ListField(required=False),
                "data": serializers.ListField(
                    child=serializers.DictField(),
                    required=False,
                    help_text="A Jaeger query-API JSON export: its traces are all stored.",
                ),
            },
        ),
        responses={
            201: OpenApiResponse(
                TraceOut,
                description='The trace; for a Jaeger export, `{"traces": [...]}`.',
            ),
            **ERROR_RESPONSES,
        },
    )
    @idempotent_post
    def post(self, request):
        _body_size_check(request)
        payload = request.data
        named = payload.get("project") if isinstance(payload, dict) else None
        header = project_header_read(request)
        if is_jaeger_export(payload):
            with transaction.atomic():
                traces = ingest_jaeger(project_resolve(named=named, header=header), payload)
            body = {"traces": TraceOut(traces, many=True).data}
            return Response(body, status=status.HTTP_201_CREATED)
        with transaction.atomic():
            trace = ingest_payload(project_resolve(named=named, header=header), payload)
        return Response(TraceOut(trace).data, status=status.HTTP_201_CREATED)


class TraceDetailApi(APIView):
    """One trace with its spans in display order: all of them up to span_limit, else the
    first span_limit and `spans_next`, the URL of the rest (traces/span_pages.py)."""

    def get_permissions(self):
        return [IsCurator()] if self.request.method == "DELETE" else [IsAnnotator()]

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "span_limit",
                int,
                default=SPAN_PAGE_DEFAULT,
                description=f"Spans in the answer, 1 to {SPAN_PAGE_MAX}; the rest are paged "
                "at spans_next.",
            )
        ],
        responses=TracePagedDetailOut,
    )
    def get(self, request, trace_id: int):
        limit = span_limit_read(request)
        trace = selectors.trace_get(request.user, trace_id)
        spans = selectors.trace_spans_ordered(trace, limit=limit + 1)
        shown = spans[:limit]
        more = (
            spans_next_url(request, trace.pk, shown, spans[limit]) if len(spans) > limit else None
        )
        context = {"spans": shown, "spans_next": more}
        return Response(TracePagedDetailOut(trace, context=context).data)

    @extend_schema(
        request=None,
        responses={
            204: None,
            409: OpenApiResponse(
                ERROR_OUT, description="Kept: the message names what keeps the trace."
            ),
        },
    )
    def delete(self, request, trace_id: int):
        """Delete the trace and what it owns; 409 naming what keeps it (traces.deletion)."""
        trace = selectors.trace_get(request.user, trace_id)
        traces_delete_requested(
            traces=Trace.objects.filter(pk=trace.pk),
            user=request.user,
            all_or_nothing=True,
            field_name="trace_id",
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class TraceSpansApi(ListAPIView):
    """A trace's spans in display order, a page at a time (cursor); each with its parent."""

    permission_classes = [IsAnnotator]
    pagination_class = SpanPages
    serializer_class = SpanOut

    def get_queryset(self):
        trace = selectors.trace_get(self.request.user, self.kwargs["trace_id"])
        return Span.objects.filter(trace=trace)


class TraceBulkImportApi(APIView):
    """JSONL, one trace per line (raw body or a multipart `file`). Bad lines are reported."""

    permission_classes = [IsAnnotator]
    send_only_methods = ("POST",)
    parser_classes = [MultiPartParser]

    @extend_schema(
        request={"application/x-ndjson": bytes, "multipart/form-data": bytes},
        responses={
            201: inline_serializer(
                "TraceBulkImport",
                {
                    "created": serializers.IntegerField(),
                    "trace_ids": serializers.ListField(child=serializers.IntegerField()),
                    "errors": serializers.ListField(child=serializers.DictField()),
                },
            ),
            207: OpenApiResponse(description="Some lines failed; `errors` lists them."),
            **ERROR_RESPONSES,
        },
    )
    @idempotent_post
    def post(self, request):
        _body_size_check(request)
        project = project_resolve(header=project_header_read(request))
        content_type = request.content_type.split(";")[0].strip().lower()
        if content_type == "multipart/form-data":
            upload = request.FILES.get("file")
            if upload is None:
                raise ApplicationError("Attach the JSONL file as `file`.", field="file")
            lines = upload
        else:
            lines = request.body.splitlines()
        report = traces_import_jsonl(project, lines)
        body = {
            "created": report.created,
            "trace_ids": report.trace_ids,
            "errors": [
                {"line": e.line, "message": e.message, "fields": e.fields} for e in report.errors
            ],
        }
        # 201 only when every line landed; 207 says some did and lists the ones that did not.
        code = status.HTTP_201_CREATED if not report.errors else status.HTTP_207_MULTI_STATUS
        if report.errors and not report.created:
            code = status.HTTP_400_BAD_REQUEST
        return Response(body, status=code)


def _otlp_export_schema(description: str):
    """The OpenAPI description shared by the OTLP/HTTP export endpoints."""
    return extend_schema(
        request={otlp_wire.PROTOBUF: bytes, otlp_wire.JSON: bytes},
        parameters=[OpenApiParameter(PROJECT_HEADER, str, OpenApiParameter.HEADER)],
        responses={
            (200, otlp_wire.PROTOBUF): OpenApiResponse(bytes, description=description),
            (200, otlp_wire.JSON): bytes,
            **ERROR_RESPONSES,
        },
    )


def _otlp_export(request, ingest, response_body) -> HttpResponse:
    """Ingest one OTLP/HTTP export request and answer in the encoding it was sent in."""
    _body_size_check(request)
    content_type = request.META.get("CONTENT_TYPE", "")
    result = ingest(
        body=request.body,
        content_type=content_type,
        content_encoding=request.META.get("HTTP_CONTENT_ENCODING", ""),
        project_slug=project_header_read(request),
    )
    media = otlp_wire.JSON if content_type.startswith(otlp_wire.JSON) else otlp_wire.PROTOBUF
    return HttpResponse(response_body(content_type, result), content_type=media, status=200)


class OtlpTraceExportApi(APIView):
    """OTLP/HTTP trace export (protobuf or JSON, gzip allowed) at /v1/traces."""

    permission_classes = [IsAnnotator]
    send_only_methods = ("POST",)
    parser_classes: list = []

    @_otlp_export_schema(
        "ExportTraceServiceResponse; partial_success names the spans not stored (invalid ids, "
        "no name) and warns of re-sent spans."
    )
    def post(self, request):
        return _otlp_export(
            request,
            ingest_otlp,
            lambda content_type, result: otlp.otlp_response_body(
                content_type, result.refused_count, result.warning
            ),
        )


class OtlpLogExportApi(APIView):
    """OTLP/HTTP log export (protobuf or JSON, gzip allowed) at /v1/logs: GenAI events joined
    to their spans by trace and span id, whichever comes first."""

    permission_classes = [IsAnnotator]
    send_only_methods = ("POST",)
    parser_classes: list = []

    @_otlp_export_schema(
        "ExportLogsServiceResponse; partial_success counts records that name no span."
    )
    def post(self, request):
        return _otlp_export(
            request,
            ingest_otlp_logs,
            lambda content_type, result: otlp_logs.logs_response_body(
                content_type, result.rejected, result.warning
            ),
        )
