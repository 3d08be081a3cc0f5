"""Pairwise review API: queue two traces for comparison, and answer A / B / equal."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsAnnotator, IsCurator
from core.errors import ApplicationError
from reviews.access import review_item_for_action
from reviews.api import AnnotationOut
from reviews.models import PairwiseSource, Queue, QueueKind
from reviews.pairwise import SIDES, pairwise_answer, pairwise_item_create, pairwise_layout
from reviews.pairwise_judge import pairwise_pairs_judge, queue_judge_version
from traces.selectors import traces_visible


class PairwiseCreateIn(serializers.Serializer):
    baseline_trace = serializers.IntegerField()
    candidate_trace = serializers.IntegerField()
    queue = serializers.IntegerField(required=False, help_text="A pairwise queue id.")
    source = serializers.ChoiceField(
        choices=[PairwiseSource.TRACES, PairwiseSource.AGENT_VERSIONS],
        default=PairwiseSource.TRACES,
    )


class PairwiseItemOut(serializers.Serializer):
    item_id = serializers.IntegerField()
    created = serializers.BooleanField()
    queue_id = serializers.IntegerField()
    left_trace_id = serializers.IntegerField(help_text="Shown as A.")
    right_trace_id = serializers.IntegerField(help_text="Shown as B.")


class PairwiseCreateApi(APIView):
    """Queue two trajectories of one task; the sides are drawn at random and kept."""

    permission_classes = [IsCurator]

    @extend_schema(request=PairwiseCreateIn, responses={201: PairwiseItemOut, 200: PairwiseItemOut})
    def post(self, request):
        data = PairwiseCreateIn(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        visible = traces_visible(request.user)
        baseline = get_object_or_404(visible, pk=values["baseline_trace"])
        candidate = get_object_or_404(visible, pk=values["candidate_trace"])
        queue = get_object_or_404(Queue, pk=values["queue"]) if "queue" in values else None
        item, created = pairwise_item_create(
            baseline_trace=baseline, candidate_trace=candidate, source=values["source"], queue=queue
        )
        layout = pairwise_layout(item.pairwise)
        body = {
            "item_id": item.pk,
            "created": created,
            "queue_id": item.queue_id,
            "left_trace_id": layout.left_trace_id,
            "right_trace_id": layout.right_trace_id,
        }
        return Response(body, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class PairwiseAnswerIn(serializers.Serializer):
    answers = serializers.ListField(
        child=serializers.ChoiceField(choices=SIDES),
        help_text="A, B or equal for each rubric criterion, the overall preference last.",
    )
    explanation = serializers.CharField(required=False, allow_blank=True, default="")
    adjudicate = serializers.BooleanField(default=False, help_text="A curator settles the item.")


class PairwiseAnswerApi(APIView):
    """Answer a pairwise item the caller holds (409 lock_lost otherwise), or adjudicate it."""

    permission_classes = [IsAnnotator]

    @extend_schema(request=PairwiseAnswerIn, responses={201: AnnotationOut})
    def post(self, request, item_id: int):
        item = review_item_for_action(request.user, item_id)
        data = PairwiseAnswerIn(data=request.data)
        data.is_valid(raise_exception=True)
        annotation = pairwise_answer(item=item, user=request.user, **data.validated_data)
        return Response(AnnotationOut(annotation).data, status=status.HTTP_201_CREATED)


class PairwiseJudgeOut(serializers.Serializer):
    run_id = serializers.IntegerField(allow_null=True, help_text="None: nothing left to ask.")
    pairs = serializers.IntegerField(help_text="Pairs sent to the judge, each asked twice.")


class QueuePairwiseJudgeApi(APIView):
    """Ask a pairwise queue's judge about the pairs it has not answered under its version."""

    permission_classes = [IsCurator]

    @extend_schema(request=None, responses={201: PairwiseJudgeOut, 200: PairwiseJudgeOut})
    def post(self, request, queue_id: int):
        queue = get_object_or_404(Queue, pk=queue_id)
        if queue.kind != QueueKind.PAIRWISE:
            raise ApplicationError(f"Queue {queue.name!r} is not a pairwise queue.", field="queue")
        if queue_judge_version(queue) is None:
            raise ApplicationError(
                "The queue's judge is off: give it a pairwise rubric and a judge mode.",
                field="judge_assist",
            )
        run = pairwise_pairs_judge(queue, user=request.user)
        body = {"run_id": run.pk if run else None, "pairs": run.trace_count if run else 0}
        return Response(body, status=status.HTTP_201_CREATED if run else status.HTTP_200_OK)
