"""POST /api/traces/<id>/scores/: a person scores a trace directly, without a queue."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.idempotency import idempotent_post
from accounts.permissions import IsAnnotator
from core.api_fields import exactly_one_given
from judges.models import Rubric, RubricVersion, RubricVersionStatus
from reviews.api import AnnotationOut, ResolveIn
from reviews.blind import trace_blind_for
from reviews.trace_actions import trace_score_direct
from traces.selectors import trace_get


class TraceScoreIn(ResolveIn):
    promote = None
    rubric_version = serializers.IntegerField(required=False, help_text="A rubric version id.")
    rubric = serializers.CharField(
        required=False, help_text="A rubric id or name: its newest approved version is used."
    )

    def validate(self, data):
        exactly_one_given(data, "rubric_version", "rubric")
        approved = RubricVersion.objects.select_related("rubric").filter(
            status=RubricVersionStatus.APPROVED
        )
        if "rubric_version" in data:
            version = approved.filter(pk=data["rubric_version"]).first()
            if version is None:
                raise serializers.ValidationError(
                    {"rubric_version": "No approved rubric version has this id."}
                )
        else:
            key = data["rubric"]
            rubric = Rubric.objects.filter(**({"pk": int(key)} if key.isdigit() else {"name": key}))
            version = approved.filter(rubric__in=rubric).order_by("-number").first()
            if version is None:
                raise serializers.ValidationError(
                    {"rubric": "No such rubric with an approved version."}
                )
        data["rubric_version"] = version
        return data


class TraceScoreApi(APIView):
    """Score a trace under a rubric: stored as a review annotation (audited, counted in
    agreement); the person's new score replaces their earlier one on the same rubric."""

    permission_classes = [IsAnnotator]

    @extend_schema(request=TraceScoreIn, responses={201: AnnotationOut}, operation_id="trace_score")
    @idempotent_post
    def post(self, request, trace_id: int):
        trace = trace_get(request.user, trace_id)
        incoming = TraceScoreIn(data=request.data)
        incoming.is_valid(raise_exception=True)
        data = incoming.validated_data
        answer = trace_score_direct(
            trace=trace,
            user=request.user,
            rubric_version=data["rubric_version"],
            score=data["score"],
            criteria_results=data["criteria_results"],
            explanation=data.get("explanation", ""),
            failure_tags=data.get("failure_tags", []),
            blind=trace_blind_for(request.user, trace),
        )
        return Response(AnnotationOut(answer).data, status=status.HTTP_201_CREATED)
