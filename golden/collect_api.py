"""Golden API for collecting traces: drafts from trace ids or a trace-list filter, and a
curator's confirmation of a draft."""

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.idempotency import idempotent_post
from accounts.permissions import IsCurator
from core.api_fields import RowIdsField, exactly_one_given, rows_chosen
from golden.collect import MAX_TRACES_AT_ONCE, golden_drafts_from_traces, golden_example_confirm
from golden.selectors import golden_example_get_for_user
from golden.serializers import GoldenExampleOutSerializer
from traces.filters import traces_for_filter_fields
from traces.models import Trace
from traces.selectors import traces_visible


class CollectIn(serializers.Serializer):
    trace_ids = RowIdsField(max_length=MAX_TRACES_AT_ONCE)
    filter = serializers.DictField(
        child=serializers.CharField(),
        required=False,
        help_text="Trace-list filter parameters, as GET /api/traces/ takes them.",
    )

    def validate(self, data):
        exactly_one_given(data, "trace_ids", "filter")
        return data


CollectOut = inline_serializer(
    "GoldenCollect",
    {
        "created": GoldenExampleOutSerializer(many=True),
        "skipped_trace_ids": serializers.ListField(child=serializers.IntegerField()),
    },
)


def _selected_traces(user, data):
    visible = traces_visible(user, Trace.objects.all())
    if "trace_ids" in data:
        return rows_chosen(visible, data["trace_ids"], field="trace_ids", noun="traces")
    return traces_for_filter_fields(visible, data["filter"])


class GoldenCollectApi(APIView):
    """Draft golden examples from traces: reference trajectories drafted as promotion does,
    each a draft until a curator confirms it; traces already in golden are skipped."""

    permission_classes = [IsCurator]

    @extend_schema(request=CollectIn, responses={201: CollectOut}, operation_id="golden_collect")
    @idempotent_post
    def post(self, request):
        incoming = CollectIn(data=request.data)
        incoming.is_valid(raise_exception=True)
        traces = _selected_traces(request.user, incoming.validated_data)
        report = golden_drafts_from_traces(traces=traces, user=request.user)
        body = {
            "created": GoldenExampleOutSerializer(report.created, many=True).data,
            "skipped_trace_ids": report.skipped_trace_ids,
        }
        return Response(body, status=status.HTTP_201_CREATED)


class GoldenConfirmApi(APIView):
    """A curator confirms a draft example: it joins the dataset and the next version."""

    permission_classes = [IsCurator]

    @extend_schema(request=None, responses=GoldenExampleOutSerializer)
    def post(self, request, pk: int):
        example = golden_example_get_for_user(request.user, pk)
        example = golden_example_confirm(example=example, user=request.user)
        return Response(GoldenExampleOutSerializer(example).data)
