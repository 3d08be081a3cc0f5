"""Review queue API: claim, resolve, adjudicate, skip, renew the lock, undo, flag a trace."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.idempotency import idempotent_post
from accounts.permissions import IsAnnotator, IsCurator
from core.pagination import ApiPagination
from reviews.access import (
    annotation_for_user,
    queue_for_user,
    queue_hides_judge_from,
    review_item_for_action,
)
from reviews.claims import review_item_claim_next, review_item_lock_renew
from reviews.forms import QueueFilterForm
from reviews.models import Annotation, ReviewItem
from reviews.selectors import CLAIM_ORDER, queue_items, queues_with_counts
from reviews.services import (
    annotation_undo,
    review_item_adjudicate,
    review_item_resolve,
    review_item_skip,
)
from reviews.trace_actions import review_item_flag_trace
from traces.selectors import traces_visible


class QueueOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    priority = serializers.IntegerField()
    blind = serializers.BooleanField()
    annotators_per_item = serializers.IntegerField()
    open_count = serializers.IntegerField()
    curator_count = serializers.IntegerField()


class ReviewItemOut(serializers.ModelSerializer):
    trace_id = serializers.IntegerField()
    rubric_version_id = serializers.IntegerField(allow_null=True)
    claimed_by = serializers.CharField(source="claimed_by.username", allow_null=True, default=None)

    class Meta:
        model = ReviewItem
        fields = [
            "id",
            "queue_id",
            "trace_id",
            "rubric_version_id",
            "reason",
            "detail",
            "status",
            "priority",
            "needs_curator",
            "claimed_by",
            "lock_expires_at",
            "resolved_score",
        ]
        extra_kwargs = {"reason": {"allow_null": True}}

    def to_representation(self, instance):
        data = super().to_representation(instance)
        # A blind queue keeps the judge's side from annotators, as its page does.
        if self.context.get("blind"):
            data.update(reason=None, detail="")
        return data


class AnnotationOut(serializers.ModelSerializer):
    annotator = serializers.CharField(source="annotator.username")

    class Meta:
        model = Annotation
        fields = [
            "id",
            "item_id",
            "annotator",
            "score",
            "explanation",
            "failure_tags",
            "blind",
            "is_adjudication",
            "promoted",
            "criteria_results",
            "created_at",
        ]


class ResolveIn(serializers.Serializer):
    score = serializers.FloatField(required=False, allow_null=True, default=None)
    criteria_results = serializers.ListField(
        child=serializers.BooleanField(),
        required=False,
        allow_null=True,
        default=None,
        help_text="Yes/no per rubric criterion, in order; the score is then the share met.",
    )
    explanation = serializers.CharField(required=False, allow_blank=True, max_length=20_000)
    failure_tags = serializers.ListField(
        child=serializers.CharField(max_length=60), required=False, max_length=10
    )
    promote = serializers.BooleanField(required=False, default=False)


class QueueListApi(APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(responses=QueueOut(many=True))
    def get(self, request):
        return Response(QueueOut(queues_with_counts(), many=True).data)


class QueueItemsApi(APIView):
    """The queue's items, filtered like the queue page (status, reason, claim, curator, q)."""

    permission_classes = [IsAnnotator]
    pagination_class = ApiPagination
    page_ordering = CLAIM_ORDER

    @extend_schema(
        parameters=[
            OpenApiParameter(name, str, description=field.label or name)
            for name, field in QueueFilterForm.base_fields.items()
        ],
        responses=ReviewItemOut(many=True),
    )
    def get(self, request, queue_id: int):
        queue = queue_for_user(request.user, queue_id)
        form = QueueFilterForm(request.query_params)
        if not form.is_valid():
            raise serializers.ValidationError(form.errors)
        if form.cleaned_data.get("reason") and queue_hides_judge_from(request.user, queue):
            raise serializers.ValidationError(
                {"reason": "A blind queue is not filtered by reason: the reason is the judge's."}
            )
        items = (
            queue_items(queue, form.cleaned_data, request.user)
            .select_related("claimed_by")
            .order_by(*CLAIM_ORDER)
        )
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(items, request, view=self)
        blind = {"blind": queue_hides_judge_from(request.user, queue)}
        return paginator.get_paginated_response(ReviewItemOut(page, many=True, context=blind).data)


class QueueClaimApi(APIView):
    """Lock the next item of the queue for the caller; item is null when none is left."""

    permission_classes = [IsAnnotator]

    @extend_schema(
        request=None,
        responses=inline_serializer("ClaimOut", {"item": ReviewItemOut(allow_null=True)}),
    )
    def post(self, request, queue_id: int):
        queue = queue_for_user(request.user, queue_id)
        item = review_item_claim_next(user=request.user, queue=queue)
        blind = {"blind": queue_hides_judge_from(request.user, queue)}
        return Response({"item": ReviewItemOut(item, context=blind).data if item else None})


class ItemResolveApi(APIView):
    """Answer an item the caller holds; 409 with code lock_lost when the lock is gone."""

    permission_classes = [IsAnnotator]
    write = staticmethod(review_item_resolve)

    @extend_schema(request=ResolveIn, responses={201: AnnotationOut})
    def post(self, request, item_id: int):
        item = review_item_for_action(request.user, item_id)
        data = ResolveIn(data=request.data)
        data.is_valid(raise_exception=True)
        annotation = self.write(item=item, user=request.user, **data.validated_data)
        return Response(AnnotationOut(annotation).data, status=status.HTTP_201_CREATED)


class ItemAdjudicateApi(ItemResolveApi):
    """A curator's final answer on an open item."""

    permission_classes = [IsCurator]
    write = staticmethod(review_item_adjudicate)


class ItemSkipApi(APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(request=None, responses=ReviewItemOut)
    def post(self, request, item_id: int):
        item = review_item_for_action(request.user, item_id)
        review_item_skip(item=item, user=request.user)
        item.refresh_from_db()
        return Response(ReviewItemOut(item).data)


class ItemHeartbeatApi(APIView):
    """Renew the caller's lock; 409 lock_lost when it is gone."""

    permission_classes = [IsAnnotator]

    @extend_schema(
        request=None,
        responses=inline_serializer("LockOut", {"lock_expires_at": serializers.DateTimeField()}),
    )
    def post(self, request, item_id: int):
        item = review_item_for_action(request.user, item_id)
        expires = review_item_lock_renew(item=item, user=request.user)
        return Response({"lock_expires_at": expires})


class AnnotationUndoApi(APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(request=None, responses=ReviewItemOut)
    def post(self, request, annotation_id: int):
        annotation = annotation_for_user(request.user, annotation_id)
        item = annotation_undo(annotation=annotation, user=request.user)
        return Response(ReviewItemOut(item).data)


class FlagIn(serializers.Serializer):
    trace_id = serializers.IntegerField()
    note = serializers.CharField(required=False, allow_blank=True, max_length=2000)


class TraceFlagApi(APIView):
    """A person sends a trace to the review queue."""

    permission_classes = [IsAnnotator]

    @extend_schema(request=FlagIn, responses={201: ReviewItemOut})
    @idempotent_post
    def post(self, request):
        data = FlagIn(data=request.data)
        data.is_valid(raise_exception=True)
        trace = get_object_or_404(traces_visible(request.user), pk=data.validated_data["trace_id"])
        item = review_item_flag_trace(
            trace=trace, user=request.user, note=data.validated_data.get("note", "")
        )
        return Response(ReviewItemOut(item).data, status=status.HTTP_201_CREATED)
