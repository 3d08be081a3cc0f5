"""Judge-run API: list runs, start a run, read its progress, cancel it."""

from django.db import transaction
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.idempotency import idempotent_post
from accounts.permissions import IsAnnotator, IsCurator
from core.api_fields import RowIdsField, exactly_one_given, ids_chosen
from core.errors import ApplicationError
from core.pagination import ApiPagination
from judges import selectors
from judges.models import (
    JudgeConfig,
    JudgeRun,
    JudgeRunStatus,
    Rubric,
    RubricVersion,
    RubricVersionStatus,
)
from judges.services import judge_run_cancel, judge_run_start
from traces.models import Session, Trace

MAX_TRACE_IDS = 10_000


class TraceFilterIn(serializers.Serializer):
    project = serializers.SlugField(required=False)
    agent_name = serializers.CharField(required=False)
    agent_version = serializers.CharField(required=False)
    task_type = serializers.CharField(required=False)
    since = serializers.DateTimeField(required=False)
    until = serializers.DateTimeField(required=False)
    limit = serializers.IntegerField(required=False, min_value=1, max_value=100_000)


class JudgeRunIn(serializers.Serializer):
    rubric_version = serializers.IntegerField(required=False, help_text="A rubric version id.")
    rubric = serializers.CharField(
        required=False, help_text="A rubric id or name: its newest approved version is used."
    )
    config = serializers.CharField(default="default", help_text="A judge config id or name.")
    trace_ids = RowIdsField(max_length=MAX_TRACE_IDS)
    filter = TraceFilterIn(required=False)
    session_ids = RowIdsField(
        max_length=MAX_TRACE_IDS,
        help_text="Sessions to judge, each as one conversation with one verdict.",
    )
    sample_rate = serializers.FloatField(default=1.0, min_value=0.0, max_value=1.0)

    def validate(self, data):
        exactly_one_given(data, "rubric_version", "rubric")
        exactly_one_given(data, "trace_ids", "filter", "session_ids")
        if data["sample_rate"] <= 0:
            raise serializers.ValidationError({"sample_rate": "Must be above 0."})
        data["rubric_version"] = self._version(data)
        data["config"] = self._config(data["config"])
        if "session_ids" in data:
            data["sessions"], data["traces"] = self._sessions(data["session_ids"]), None
        else:
            data["sessions"], data["traces"] = None, self._traces(data)
        return data

    def _sessions(self, session_ids: list[int]) -> list[int]:
        return ids_chosen(Session.objects.all(), session_ids, field="session_ids", noun="sessions")

    def _version(self, data) -> RubricVersion:
        if "rubric_version" in data:
            version = RubricVersion.objects.filter(pk=data["rubric_version"]).first()
            if version is None:
                raise serializers.ValidationError({"rubric_version": "No such rubric version."})
            return version
        key = data["rubric"]
        rubric = Rubric.objects.filter(**({"pk": int(key)} if key.isdecimal() else {"name": key}))
        rubric = rubric.first()
        if rubric is None:
            raise serializers.ValidationError({"rubric": "No such rubric."})
        version = (
            rubric.versions.filter(status=RubricVersionStatus.APPROVED).order_by("-number").first()
        )
        if version is None:
            raise serializers.ValidationError({"rubric": "The rubric has no approved version."})
        return version

    def _config(self, key: str) -> JudgeConfig:
        lookup = {"pk": int(key)} if key.isdecimal() else {"name": key}
        config = JudgeConfig.objects.filter(**lookup).first()
        if config is None:
            raise serializers.ValidationError({"config": "No such judge config."})
        return config

    def _traces(self, data):
        if "trace_ids" in data:
            return ids_chosen(
                Trace.objects.all(), data["trace_ids"], field="trace_ids", noun="traces"
            )
        return selectors.traces_for_filter(data["filter"])


class JudgeRunOut(serializers.ModelSerializer):
    rubric = serializers.CharField(source="rubric_version.rubric.name")
    rubric_version_number = serializers.IntegerField(source="rubric_version.number")
    config = serializers.CharField(source="config.name")
    progress = serializers.SerializerMethodField()

    class Meta:
        model = JudgeRun
        fields = [
            "id",
            "status",
            "rubric",
            "rubric_version",
            "rubric_version_number",
            "config",
            "sample_rate",
            "online",
            "scope",
            "trace_count",
            "trace_filter",
            "created_at",
            "finished_at",
            "progress",
        ]

    def get_progress(self, run) -> dict:
        return selectors.judge_run_progress(run)


def _filter_record(data) -> dict:
    if "trace_ids" in data:
        return {"trace_ids": len(data["trace_ids"])}
    if "session_ids" in data:
        return {"session_ids": len(data["session_ids"])}
    return {key: str(value) for key, value in data["filter"].items()}


class JudgeRunListOut(JudgeRunOut):
    """A run in a list: its progress (two aggregate queries a run) is on the run's own URL."""

    class Meta(JudgeRunOut.Meta):
        fields = [name for name in JudgeRunOut.Meta.fields if name != "progress"]


class JudgeRunListCreateApi(APIView):
    pagination_class = ApiPagination
    page_ordering = ("-id",)  # judges.selectors.judge_runs_listed's

    def get_permissions(self):
        if self.request.method in ("GET", "HEAD", "OPTIONS"):
            return [IsAnnotator()]
        return [IsCurator()]

    @extend_schema(
        parameters=[
            OpenApiParameter("status", str, enum=JudgeRunStatus.values),
            OpenApiParameter("online", str, enum=["yes", "no"]),
        ],
        responses=JudgeRunListOut(many=True),
        operation_id="judge_run_list",
        description="Runs, newest first. Each run's progress is at /api/judge-runs/{id}/.",
    )
    def get(self, request):
        run_status = request.query_params.get("status", "")
        online = request.query_params.get("online", "")
        if run_status and run_status not in JudgeRunStatus.values:
            choices = ", ".join(JudgeRunStatus.values)
            raise ApplicationError(f"Must be one of {choices}.", field="status")
        if online not in ("", "yes", "no"):
            raise ApplicationError("Must be yes or no.", field="online")
        runs = selectors.judge_runs_listed(
            status=run_status, online=None if not online else online == "yes"
        )
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(runs, request, view=self)
        return paginator.get_paginated_response(JudgeRunListOut(page, many=True).data)

    @extend_schema(
        request=JudgeRunIn,
        responses={201: JudgeRunOut, 202: JudgeRunOut},
        operation_id="judge_run_start",
        description="201 with the run; 202 when it is stored but the broker is down: its passes "
        "are enqueued by the sweep.",
    )
    @idempotent_post
    def post(self, request):
        incoming = JudgeRunIn(data=request.data)
        incoming.is_valid(raise_exception=True)
        data = incoming.validated_data
        with transaction.atomic():
            run = judge_run_start(
                rubric_version=data["rubric_version"],
                config=data["config"],
                traces=data["traces"],
                user=request.user,
                sample_rate=data["sample_rate"],
                trace_filter=_filter_record(data),
                sessions=data["sessions"],
            )
        run = selectors.judge_run_get(run.pk)
        return Response(JudgeRunOut(run).data, status=status.HTTP_201_CREATED)


class JudgeRunDetailApi(APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(responses=JudgeRunOut, operation_id="judge_run_read")
    def get(self, request, run_id: int):
        run = get_object_or_404(JudgeRun.objects.select_related(*selectors.RUN_RELATED), pk=run_id)
        return Response(JudgeRunOut(run).data)


class JudgeRunCancelApi(APIView):
    permission_classes = [IsCurator]

    @extend_schema(request=None, responses=JudgeRunOut, operation_id="judge_run_cancel")
    def post(self, request, run_id: int):
        run = get_object_or_404(JudgeRun, pk=run_id)
        run = judge_run_cancel(run=run, user=request.user)
        return Response(JudgeRunOut(selectors.judge_run_get(run.pk)).data)
