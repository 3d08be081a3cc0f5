"""GET /api/scores/: every score a trace has, from the judge, from people, from checks and from
end users, per trace; for one trace, one judge run, or any trace-list filter. Curators only:
annotators labelling blind must not read the judge's scores here first."""

from django.db.models import Prefetch
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.generics import GenericAPIView

from accounts.permissions import IsCurator
from core.errors import ApplicationError
from core.pagination import ApiPagination
from judges.models import Judgment, Verdict
from metrics.models import RedFlag
from reviews.models import Annotation, ReviewItem
from traces.feedback_api import FeedbackOut
from traces.filters import TraceFilter, trace_list_ordering
from traces.models import Feedback, Trace
from traces.selectors import traces_visible


class PassOut(serializers.ModelSerializer):
    class Meta:
        model = Judgment
        fields = ["pass_index", "status", "score", "parse_status", "explanation", "cost_usd"]


class HumanAnnotationOut(serializers.ModelSerializer):
    """An annotation as a trace's scores show it: who answered what, not its review item."""

    annotator = serializers.CharField(source="annotator.username")

    class Meta:
        model = Annotation
        fields = [
            "annotator",
            "score",
            "explanation",
            "failure_tags",
            "blind",
            "is_adjudication",
            "created_at",
        ]


class HumanOut(serializers.ModelSerializer):
    review_item = serializers.IntegerField(source="pk")
    annotations = serializers.SerializerMethodField()

    class Meta:
        model = ReviewItem
        fields = ["review_item", "reason", "status", "resolved_score", "resolved_at", "annotations"]

    def get_annotations(self, item) -> list[dict]:
        kept = [a for a in item.annotations.all() if a.undone_at is None]
        return HumanAnnotationOut(kept, many=True).data


class RedFlagOut(serializers.ModelSerializer):
    span_id = serializers.SerializerMethodField()

    class Meta:
        model = RedFlag
        fields = ["kind", "span_id", "detail"]

    def get_span_id(self, flag) -> str | None:
        return flag.span.span_id if flag.span_id else None


class TraceScoresOut(serializers.Serializer):
    id = serializers.IntegerField()
    trace_id = serializers.CharField(source="external_id")
    project = serializers.CharField(source="project.slug")
    task = serializers.CharField()
    verdicts = serializers.SerializerMethodField()
    human = HumanOut(source="review_items", many=True)
    red_flags = RedFlagOut(many=True)
    feedback = FeedbackOut(many=True)

    def get_verdicts(self, trace) -> list[dict]:
        passes: dict[int, list] = {}
        for judgment in trace.judgments.all():
            passes.setdefault(judgment.run_id, []).append(judgment)
        return [
            {
                "run": verdict.run_id,
                "rubric": verdict.rubric_version.rubric.name,
                "rubric_version": verdict.rubric_version.number,
                "config": verdict.config.name,
                "status": verdict.status,
                "score": verdict.score,
                "reason": verdict.reason,
                "stale": verdict.stale,
                "passes": PassOut(passes.get(verdict.run_id, []), many=True).data,
            }
            for verdict in trace.verdicts.all()
        ]


class ScoresPagination(ApiPagination):
    default_limit = 50
    max_limit = 500


class ScoresApi(GenericAPIView):
    permission_classes = [IsCurator]
    serializer_class = TraceScoresOut
    filter_backends = [DjangoFilterBackend]
    filterset_class = TraceFilter
    pagination_class = ScoresPagination

    @property
    def page_ordering(self) -> tuple[str, ...]:
        return trace_list_ordering(self.request.query_params.get("sort", ""))

    def get_queryset(self):
        traces = Trace.objects.select_related("project")
        params = self.request.query_params
        if params.get("trace_id"):
            traces = traces.filter(external_id=params["trace_id"].lower())
        if params.get("run"):
            if not params["run"].isdigit():
                raise ApplicationError("run is a judge run id.", field="run")
            traces = traces.filter(verdicts__run_id=int(params["run"])).distinct()
        run_only = {"run_id": int(params["run"])} if params.get("run") else {}
        return traces_visible(self.request.user, traces).prefetch_related(
            Prefetch(
                "verdicts",
                Verdict.objects.filter(**run_only)
                .select_related("rubric_version__rubric", "config")
                .order_by("pk"),
            ),
            Prefetch(
                "judgments",
                Judgment.objects.filter(**run_only).order_by("run_id", "pass_index"),
            ),
            Prefetch(
                "review_items",
                ReviewItem.objects.order_by("pk").prefetch_related(
                    Prefetch(
                        "annotations",
                        Annotation.objects.select_related("annotator").order_by("pk"),
                    )
                ),
            ),
            Prefetch("red_flags", RedFlag.objects.select_related("span").order_by("pk")),
            Prefetch(
                "feedback",
                Feedback.objects.select_related("trace__project").order_by("pk"),
            ),
        )

    @extend_schema(
        parameters=[
            OpenApiParameter("trace_id", str, description="One trace by its hex id."),
            OpenApiParameter("run", int, description="Only this judge run's verdicts."),
        ],
        responses=TraceScoresOut(many=True),
    )
    def get(self, request):
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        return self.get_paginated_response(TraceScoresOut(page, many=True).data)
