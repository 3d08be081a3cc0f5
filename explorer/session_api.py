"""Session API: conversations with their totals, and one conversation's traces in order."""

from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsAnnotator
from core.pagination import ApiPagination
from explorer import session_selectors
from traces.api import TraceOut
from traces.session_selectors import (
    SESSION_ORDER,
    SessionFilter,
    session_get,
    sessions_as_seen_by,
)


class SessionVerdictOut(serializers.Serializer):
    run = serializers.IntegerField(source="run_id")
    rubric = serializers.CharField(source="rubric_version.rubric.name")
    rubric_version = serializers.IntegerField(source="rubric_version.number")
    status = serializers.CharField()
    score = serializers.FloatField(allow_null=True)
    reason = serializers.CharField()
    stale = serializers.BooleanField()


class SessionOut(serializers.Serializer):
    id = serializers.IntegerField()
    project = serializers.CharField(source="project.slug")
    session_id = serializers.CharField(source="external_id", help_text="As the agent sent it.")
    trace_count = serializers.IntegerField()
    error_count = serializers.IntegerField()
    input_tokens = serializers.IntegerField()
    output_tokens = serializers.IntegerField()
    cost_usd = serializers.DecimalField(max_digits=14, decimal_places=6)
    first_started_at = serializers.DateTimeField(
        allow_null=True, help_text="When its earliest trace started."
    )
    last_trace_at = serializers.DateTimeField(
        allow_null=True,
        help_text="The latest moment of any of its traces: its end, else its start.",
    )
    first_task = serializers.CharField(help_text="The first trace's task, up to 200 characters.")
    verdicts = SessionVerdictOut(many=True, source="verdict_list")


class SessionDetailOut(SessionOut):
    traces = serializers.SerializerMethodField()

    @extend_schema(exclude=True)
    def get_traces(self, session) -> list[dict]:
        return TraceOut(self.context["traces"], many=True).data


class SessionListApi(GenericAPIView):
    """Sessions (conversations), newest activity first; filter by `project` and `q` (id).

    Counted up to 1,000 like the trace list (`count_is_lower_bound` says when there are more)."""

    permission_classes = [IsAnnotator]
    pagination_class = ApiPagination
    page_ordering = SESSION_ORDER
    serializer_class = SessionOut
    filter_backends = [DjangoFilterBackend]
    filterset_class = SessionFilter

    def get_queryset(self):
        return session_selectors.session_list(self.request.user, {}).qs

    @extend_schema(responses=SessionOut(many=True), operation_id="sessions_list")
    def get(self, request):
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        page = sessions_as_seen_by(request.user, list(page))
        return self.get_paginated_response(SessionOut(page, many=True).data)


class SessionDetailApi(APIView):
    """One session with its verdicts and every trace it holds, in the order they happened."""

    permission_classes = [IsAnnotator]

    @extend_schema(responses=SessionDetailOut, operation_id="session_read")
    def get(self, request, session_id: int):
        session = session_get(request.user, session_id)
        session.verdict_list = list(
            session_selectors.session_verdicts_visible(request.user)
            .filter(session=session)
            .select_related("rubric_version__rubric")
            .order_by("-created_at")
        )
        traces = session_selectors.session_traces(request.user, session)
        return Response(SessionDetailOut(session, context={"traces": traces}).data)
