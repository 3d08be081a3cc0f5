"""Rubric API: save the next version of a rubric, checked like the edit page checks it; read
and set what a rubric judges online (new traces, idle sessions)."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsAnnotator, IsCurator
from core.errors import error_body
from judges.models import (
    OutputFormat,
    Rubric,
    RubricVersion,
    RubricVersionStatus,
    ScoreType,
    TraceFormat,
)
from judges.rubrics import (
    ONLINE_FIELDS,
    SESSION_IDLE_MINUTES_MAX,
    RubricTemplateError,
    rubric_online_update,
    rubric_version_create,
)
from judges.session_online import session_idle_minutes


class RubricVersionIn(serializers.Serializer):
    system_prompt = serializers.CharField(max_length=100_000, trim_whitespace=False)
    user_template = serializers.CharField(max_length=100_000, trim_whitespace=False)
    evaluation_steps = serializers.ListField(
        child=serializers.CharField(max_length=2000), required=False, max_length=50
    )
    rubric_text = serializers.CharField(required=False, allow_blank=True, max_length=20_000)
    score_type = serializers.ChoiceField(choices=ScoreType.choices)
    score_min = serializers.FloatField(default=0)
    score_max = serializers.FloatField(default=1)
    output_format = serializers.ChoiceField(choices=OutputFormat.choices)
    trace_format = serializers.ChoiceField(
        choices=TraceFormat.choices, default=TraceFormat.SPAN_TREE
    )
    status = serializers.ChoiceField(
        choices=RubricVersionStatus.choices, default=RubricVersionStatus.DRAFT
    )
    note = serializers.CharField(required=False, allow_blank=True, max_length=500)


class RubricVersionOut(serializers.ModelSerializer):
    class Meta:
        model = RubricVersion
        fields = ["id", "rubric", "number", "status", "score_type", "created_at"]


class RubricVersionCreateApi(APIView):
    permission_classes = [IsCurator]

    @extend_schema(
        request=RubricVersionIn,
        responses={201: RubricVersionOut},
        operation_id="rubric_version_create",
        description="400 names the field and line of any template problem, including a "
        "template that would render past its size or time bound.",
    )
    def post(self, request, rubric_id: int):
        rubric = get_object_or_404(Rubric, pk=rubric_id)
        incoming = RubricVersionIn(data=request.data)
        incoming.is_valid(raise_exception=True)
        try:
            version = rubric_version_create(
                rubric=rubric, user=request.user, **incoming.validated_data
            )
        except RubricTemplateError as exc:
            fields: dict[str, list[str]] = {}
            for problem in exc.problems:
                fields.setdefault(problem.field, []).append(str(problem))
            body = error_body("invalid", str(exc), fields)
            return Response(body, status=status.HTTP_400_BAD_REQUEST)
        return Response(RubricVersionOut(version).data, status=status.HTTP_201_CREATED)


class RubricOnlineIn(serializers.Serializer):
    """Fields left out keep their value."""

    judge_new_traces = serializers.BooleanField(required=False)
    judge_idle_sessions = serializers.BooleanField(
        required=False, help_text="Judge each session whole once it has been quiet long enough."
    )
    session_idle_minutes = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        max_value=SESSION_IDLE_MINUTES_MAX,
        help_text="Quiet minutes before a session is judged; null: the site's default.",
    )
    sample_rate = serializers.FloatField(
        required=False,
        min_value=0.0,
        max_value=1.0,
        help_text="Share of new traces and of idle sessions judged.",
    )


class RubricOnlineOut(serializers.Serializer):
    rubric = serializers.IntegerField(source="pk")
    judge_new_traces = serializers.BooleanField()
    judge_idle_sessions = serializers.BooleanField()
    session_idle_minutes = serializers.IntegerField(
        allow_null=True, help_text="As set on the rubric; null: the site's default."
    )
    effective_idle_minutes = serializers.SerializerMethodField(
        help_text="The quiet minutes in force (the rubric's, else SESSION_IDLE_MINUTES)."
    )
    sample_rate = serializers.FloatField()

    def get_effective_idle_minutes(self, rubric) -> int:
        return session_idle_minutes(rubric)


class RubricOnlineApi(APIView):
    """What a rubric judges online: annotators read it, curators change it."""

    def get_permissions(self):
        return [IsAnnotator()] if self.request.method == "GET" else [IsCurator()]

    @extend_schema(responses=RubricOnlineOut, operation_id="rubric_online_read")
    def get(self, request, rubric_id: int):
        rubric = get_object_or_404(Rubric, pk=rubric_id)
        return Response(RubricOnlineOut(rubric).data)

    @extend_schema(
        request=RubricOnlineIn,
        responses=RubricOnlineOut,
        operation_id="rubric_online_update",
        description="400 names the field: a sample rate outside 0-1, idle minutes below 1, "
        "or idle sessions asked of a rubric for one task type.",
    )
    def patch(self, request, rubric_id: int):
        rubric = get_object_or_404(Rubric, pk=rubric_id)
        incoming = RubricOnlineIn(data=request.data)
        incoming.is_valid(raise_exception=True)
        values = {name: getattr(rubric, name) for name in ONLINE_FIELDS}
        values.update(incoming.validated_data)
        rubric = rubric_online_update(rubric=rubric, **values)
        return Response(RubricOnlineOut(rubric).data)
