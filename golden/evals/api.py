"""Eval-run and gate endpoints: record a run, score it, read it, gate a candidate."""

from __future__ import annotations

import django_filters
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import extend_schema, extend_schema_field, inline_serializer
from evalsite_checks.matchers import AUTO as AUTO_MATCHER
from evalsite_checks.matchers import SEMANTIC, TRAJECTORY_MATCHERS
from rest_framework import serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.idempotency import idempotent_post
from accounts.permissions import IsAnnotator, IsCurator
from core.api_fields import RowIdField
from core.pagination import ApiPagination
from golden.evals.gate import AUTO, FIXED, LEARNED, GateConfig, gate_evaluate
from golden.evals.metrics import GATED_METRICS
from golden.evals.scoring import ScoringOptions, eval_run_score, parameter_judge_safe
from golden.evals.selectors import EVAL_RUN_ORDER, eval_run_list, metrics_visible
from golden.evals.services import eval_run_create, eval_run_lookup, eval_run_outcomes_judge
from golden.evals.tags import eval_run_traces_state
from golden.signals import gate_decided
from judges.trajectory_llm import behavior_judge_llm, parameter_judge_llm, path_judge_llm


class EvalRunOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    agent_name = serializers.CharField()
    agent_version = serializers.CharField()
    dataset_version = serializers.CharField(source="dataset_version.name")
    trials_per_task = serializers.IntegerField()
    is_noop = serializers.BooleanField()
    tool_worlds_started_at = serializers.DateTimeField(
        allow_null=True, help_text="When the run's tool worlds were handed out; null if never."
    )
    created_at = serializers.DateTimeField()
    metrics = serializers.SerializerMethodField()

    def get_metrics(self, run) -> dict:
        return metrics_visible(self.context["request"].user, run)


class EvalRunIn(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    agent_version = serializers.CharField(max_length=100)
    agent_name = serializers.CharField(max_length=200, required=False, default="")
    dataset_version = serializers.CharField(max_length=200, help_text="Dataset version name.")
    trials_per_task = serializers.IntegerField(min_value=1, max_value=100, default=1)
    is_noop = serializers.BooleanField(default=False)


class EvalRunScoreIn(serializers.Serializer):
    matcher = serializers.ChoiceField(choices=TRAJECTORY_MATCHERS, default=AUTO_MATCHER)
    use_llm = serializers.BooleanField(default=True)

    def validate(self, attrs):
        if attrs["matcher"] == SEMANTIC and not attrs["use_llm"]:
            raise serializers.ValidationError({"matcher": ["The semantic matcher needs the LLM."]})
        return attrs


class GateIn(serializers.Serializer):
    baseline = serializers.CharField(help_text="Eval run id or name.")
    candidate = serializers.CharField(help_text="Eval run id or name.")
    mode = serializers.ChoiceField(choices=[AUTO, FIXED, LEARNED], default=AUTO)
    fixed_drop = serializers.FloatField(min_value=0.0, max_value=0.99, default=0.10)
    thresholds = serializers.DictField(child=serializers.FloatField(), required=False, default=dict)
    k = serializers.FloatField(min_value=2.0, max_value=3.0, default=2.5)
    min_noop_runs = serializers.IntegerField(min_value=2, default=3)
    noop_runs = serializers.ListField(child=RowIdField(), required=False)
    require_people_confirmation = serializers.BooleanField(
        default=False,
        help_text="Block on a metric drop only once people, comparing the regressed tasks "
        "pairwise, preferred the baseline on confirmation_share of them; until then the "
        "decision is awaiting_people.",
    )
    confirmation_share = serializers.FloatField(min_value=0.01, max_value=1.0, default=0.5)

    def validate_thresholds(self, value):
        unknown = sorted(set(value) - set(GATED_METRICS))
        if unknown:
            raise serializers.ValidationError(
                f"Unknown metric(s) {', '.join(unknown)}; use {', '.join(GATED_METRICS)}."
            )
        return value


class GateMetricOut(serializers.Serializer):
    metric = serializers.CharField()
    direction = serializers.CharField()
    baseline = serializers.FloatField(allow_null=True)
    candidate = serializers.FloatField(allow_null=True)
    drop = serializers.FloatField(required=False)
    relative_drop = serializers.FloatField(required=False, allow_null=True)
    rule = serializers.CharField(allow_null=True, help_text="fixed, learned, or null")
    threshold = serializers.FloatField(required=False)
    noise_band = serializers.DictField(required=False, allow_null=True)
    blocked = serializers.BooleanField()
    reason = serializers.CharField()


class GateTrialOut(serializers.Serializer):
    example_key = serializers.CharField()
    trial = serializers.IntegerField()
    trace_id = serializers.IntegerField()
    passed = serializers.BooleanField(allow_null=True)
    reasons = serializers.ListField(child=serializers.CharField())
    undecided = serializers.ListField(child=serializers.CharField())


class GateTrialsOut(serializers.Serializer):
    """The candidate's trials that did not pass, with the pass rule's reasons."""

    passed = serializers.IntegerField()
    failed = GateTrialOut(many=True)
    undecided = GateTrialOut(many=True)


class GatePeopleOut(serializers.Serializer):
    """Pairwise review of the regressed tasks (golden/evals/confirmation.py)."""

    regressed = serializers.IntegerField()
    improved = serializers.IntegerField()
    queued = serializers.IntegerField()
    pending = serializers.IntegerField()
    settled = serializers.IntegerField()
    preferred_baseline = serializers.IntegerField()
    preferred_candidate = serializers.IntegerField()
    equal = serializers.IntegerField()
    text = serializers.CharField()


class GateReportOut(serializers.Serializer):
    decision = serializers.ChoiceField(choices=["pass", "block", "awaiting_people"])
    summary = serializers.CharField()
    blocked_by = serializers.ListField(child=serializers.CharField())
    baseline = serializers.DictField()
    candidate = serializers.DictField()
    config = serializers.DictField()
    noise = serializers.DictField()
    metrics = GateMetricOut(many=True)
    candidate_trials = GateTrialsOut()
    warnings = serializers.ListField(child=serializers.CharField())
    people = GatePeopleOut()


TRUE_OR_FALSE = [("true", "true"), ("false", "false")]


class TrueOrFalseFilter(django_filters.TypedChoiceFilter):
    """`true` or `false`, anything else refused by name (django-filter's BooleanFilter
    ignores a value it cannot read, which would answer with every run)."""

    def __init__(self, **kwargs):
        super().__init__(choices=TRUE_OR_FALSE, coerce=lambda value: value == "true", **kwargs)


@extend_schema_field({"type": "string", "enum": ["true", "false"]})
class ScoredFilter(TrueOrFalseFilter):
    """Whether the run has metrics yet."""

    def filter(self, queryset, value):
        if value in (None, ""):
            return queryset
        return queryset.exclude(metrics={}) if value else queryset.filter(metrics={})


class EvalRunFilter(django_filters.FilterSet):
    """Every CI job records a run: a client finds its run or its baseline by these, not by
    reading them all."""

    name = django_filters.CharFilter()
    agent_name = django_filters.CharFilter()
    agent_version = django_filters.CharFilter()
    dataset_version = django_filters.CharFilter(field_name="dataset_version__name")
    is_noop = TrueOrFalseFilter()
    scored = ScoredFilter(label="Has metrics")


class EvalRunListView(GenericAPIView):
    """Eval runs, newest first, 50 a page; counted up to 1,000 like the other long lists."""

    pagination_class = ApiPagination
    page_ordering = EVAL_RUN_ORDER
    serializer_class = EvalRunOut
    filter_backends = [DjangoFilterBackend]
    filterset_class = EvalRunFilter

    def get_permissions(self):
        return [IsCurator()] if self.request.method == "POST" else [IsAnnotator()]

    def get_queryset(self):
        return eval_run_list()

    @extend_schema(responses=EvalRunOut(many=True), operation_id="eval_runs_list")
    def get(self, request):
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        return self.get_paginated_response(
            EvalRunOut(page, many=True, context={"request": request}).data
        )

    @extend_schema(request=EvalRunIn, responses={201: EvalRunOut})
    @idempotent_post
    def post(self, request):
        data = EvalRunIn(data=request.data)
        data.is_valid(raise_exception=True)
        run = eval_run_create(**data.validated_data, user=request.user)
        return Response(
            EvalRunOut(run, context={"request": request}).data, status=status.HTTP_201_CREATED
        )


class EvalRunDetailView(APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(responses=EvalRunOut)
    def get(self, request, pk: int):
        run = eval_run_lookup(pk, field="id")
        return Response(EvalRunOut(run, context={"request": request}).data)


class EvalRunTracesOut(serializers.Serializer):
    expected = serializers.IntegerField(help_text="Tasks in the dataset version x trials.")
    received = serializers.IntegerField(help_text="Traces tagged with the run so far.")
    complete = serializers.IntegerField(help_text="Received traces that are complete.")


class EvalRunTracesView(APIView):
    """Whether the run's traces have all arrived and settled: what `finish` waits for."""

    permission_classes = [IsAnnotator]

    @extend_schema(responses=EvalRunTracesOut, operation_id="eval_run_traces_state")
    def get(self, request, pk: int):
        return Response(eval_run_traces_state(eval_run_lookup(pk, field="id")))


class EvalRunScoreView(APIView):
    permission_classes = [IsCurator]

    @extend_schema(request=EvalRunScoreIn, responses=EvalRunOut)
    def post(self, request, pk: int):
        data = EvalRunScoreIn(data=request.data)
        data.is_valid(raise_exception=True)
        run = eval_run_lookup(pk, field="id")
        use_llm = data.validated_data["use_llm"]
        eval_run_score(
            run,
            ScoringOptions(
                matcher=data.validated_data["matcher"],
                path_judge=path_judge_llm if use_llm else None,
                parameter_judge=parameter_judge_safe(parameter_judge_llm) if use_llm else None,
                behavior_judge=behavior_judge_llm if use_llm else None,
            ),
        )
        return Response(EvalRunOut(run, context={"request": request}).data)


class EvalRunJudgeIn(serializers.Serializer):
    config = serializers.CharField(default="default", help_text="Judge config name.")


class EvalRunJudgeView(APIView):
    """Start judging the run's outcomes; 202 with the judge run ids, score the run later."""

    permission_classes = [IsCurator]

    @extend_schema(
        request=EvalRunJudgeIn,
        responses={
            202: inline_serializer(
                "EvalRunJudgeOut",
                {"judge_runs": serializers.ListField(child=serializers.IntegerField())},
            )
        },
    )
    @idempotent_post
    def post(self, request, pk: int):
        data = EvalRunJudgeIn(data=request.data)
        data.is_valid(raise_exception=True)
        runs = eval_run_outcomes_judge(
            eval_run_lookup(pk, field="id"),
            config_name=data.validated_data["config"],
            user=request.user,
        )
        return Response({"judge_runs": [r.pk for r in runs]}, status=status.HTTP_202_ACCEPTED)


class GateView(APIView):
    """Pass or block a candidate run; 200 either way, the decision is in the body."""

    permission_classes = [IsAnnotator]

    @extend_schema(request=GateIn, responses={200: GateReportOut})
    def post(self, request):
        data = GateIn(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        report = gate_evaluate(
            eval_run_lookup(values["baseline"], field="baseline"),
            eval_run_lookup(values["candidate"], field="candidate"),
            GateConfig(
                fixed_drop=values["fixed_drop"],
                metric_drops=values["thresholds"],
                mode=values["mode"],
                sigma_k=values["k"],
                min_noop_runs=values["min_noop_runs"],
                noop_run_ids=values.get("noop_runs"),
                require_people_confirmation=values["require_people_confirmation"],
                confirmation_share=values["confirmation_share"],
            ),
            user=request.user,
        )
        gate_decided.send(sender=GateView, report=report)
        return Response(report)
