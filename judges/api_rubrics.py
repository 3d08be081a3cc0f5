"""Rubric API: save the next version of a rubric, checked like the edit page checks it."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsCurator
from core.errors import error_body
from judges.models import (
    OutputFormat,
    Rubric,
    RubricVersion,
    RubricVersionStatus,
    ScoreType,
    TraceFormat,
)
from judges.rubrics import RubricTemplateError, rubric_version_create


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
