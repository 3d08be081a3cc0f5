"""Trace API for deleting traces: chosen ids (all or nothing) or a trace-list filter."""

from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.idempotency import idempotent_post
from accounts.permissions import IsCurator
from core.api_fields import RowIdsField, exactly_one_given, rows_chosen
from traces.api import ERROR_OUT
from traces.deletion import MAX_TRACES_DELETED_AT_ONCE, traces_delete_requested
from traces.filters import traces_for_filter_fields
from traces.models import Trace
from traces.selectors import traces_visible


class TracesDeleteIn(serializers.Serializer):
    ids = RowIdsField(
        max_length=MAX_TRACES_DELETED_AT_ONCE,
        help_text="These traces, all or nothing: one that something keeps refuses the request.",
    )
    filter = serializers.DictField(
        child=serializers.CharField(),
        required=False,
        help_text="Trace-list filter parameters, as GET /api/traces/ takes them; the traces "
        "something keeps are left and reported.",
    )

    def validate(self, data):
        exactly_one_given(data, "ids", "filter")
        return data


TracesDeleteOut = inline_serializer(
    "TracesDeleted",
    {
        "deleted": serializers.IntegerField(),
        "kept": serializers.ListField(
            child=serializers.IntegerField(), help_text="The filter's traces left in place."
        ),
        "kept_by": serializers.DictField(
            child=serializers.IntegerField(), help_text="Those, counted by what keeps them."
        ),
    },
)


class TracesDeleteApi(APIView):
    """Delete traces with their spans, verdicts, judgments, red flags and feedback. A trace that
    a golden example, review items, an eval run's trial or a running judge run keeps stays."""

    permission_classes = [IsCurator]

    @extend_schema(
        request=TracesDeleteIn,
        responses={
            200: TracesDeleteOut,
            409: OpenApiResponse(
                ERROR_OUT, description="Chosen ids of which some are kept: nothing deleted."
            ),
        },
        operation_id="traces_delete",
    )
    @idempotent_post
    def post(self, request):
        incoming = TracesDeleteIn(data=request.data)
        incoming.is_valid(raise_exception=True)
        data = incoming.validated_data
        visible = traces_visible(request.user, Trace.objects.all())
        if "ids" in data:
            traces = rows_chosen(visible, data["ids"], field="ids", noun="traces")
            report = traces_delete_requested(
                traces=traces, user=request.user, all_or_nothing=True, field_name="ids"
            )
        else:
            traces = traces_for_filter_fields(visible, data["filter"])
            report = traces_delete_requested(
                traces=traces, user=request.user, all_or_nothing=False, field_name="filter"
            )
        return Response(
            {"deleted": report.deleted, "kept": list(report.kept_ids), "kept_by": report.kept_by}
        )
