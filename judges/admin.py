from django.contrib import admin

from core.read_only_admin import ImmutableAdmin, ReadOnlyAdmin
from judges.adaptive_rubrics.models import TaskTypeAssignment, TaskTypeRule
from judges.alignment.models import AlignmentProposal
from judges.models import (
    JudgeCalibration,
    JudgeConfig,
    JudgeRun,
    Judgment,
    OnlineRuleHour,
    PairwiseVerdict,
    Rubric,
    RubricVersion,
    TraceOnlineDecision,
    Verdict,
)


class RubricVersionInline(admin.TabularInline):
    model = RubricVersion
    extra = 0
    fields = ("number", "status", "score_type", "output_format", "created_at")
    readonly_fields = fields
    can_delete = False


@admin.register(Rubric)
class RubricAdmin(admin.ModelAdmin):
    list_display = ("name", "task_type", "judge_new_traces", "judge_idle_sessions", "sample_rate")
    inlines = [RubricVersionInline]


@admin.register(RubricVersion)
class RubricVersionAdmin(ImmutableAdmin):
    """Judgments point at the exact text they used: edit on the rubric page, which saves a new
    version."""

    list_display = ("rubric", "number", "status", "score_type", "output_format")
    list_select_related = ("rubric",)


@admin.register(JudgeConfig)
class JudgeConfigAdmin(admin.ModelAdmin):
    list_display = ("name", "provider", "model", "temperature", "passes", "tolerance")


@admin.register(JudgeRun)
class JudgeRunAdmin(admin.ModelAdmin):
    list_display = ("pk", "rubric_version", "config", "status", "online", "created_at")
    list_select_related = ("rubric_version__rubric", "config")


@admin.register(Judgment)
class JudgmentAdmin(admin.ModelAdmin):
    list_display = ("pk", "trace", "run", "pass_index", "status", "score", "parse_status")
    list_filter = ("status", "parse_status")
    raw_id_fields = ("trace", "run")


@admin.register(Verdict)
class VerdictAdmin(admin.ModelAdmin):
    list_display = ("pk", "trace", "run", "status", "score", "stale")
    list_filter = ("status", "stale")
    raw_id_fields = ("trace", "run")


@admin.register(PairwiseVerdict)
class PairwiseVerdictAdmin(admin.ModelAdmin):
    list_display = ("pk", "trace", "pair_trace", "run", "status", "score", "followed_position")
    list_filter = ("status", "followed_position")
    raw_id_fields = ("trace", "pair_trace", "run")


@admin.register(TaskTypeRule)
class TaskTypeRuleAdmin(admin.ModelAdmin):
    list_display = ("task_type", "task_pattern", "tools", "priority", "created_by")


@admin.register(TaskTypeAssignment)
class TaskTypeAssignmentAdmin(admin.ModelAdmin):
    list_display = ("trace", "task_type", "source", "previous_task_type", "corrected_by")
    list_filter = ("source",)
    list_select_related = ("trace", "corrected_by")
    raw_id_fields = ("trace",)


@admin.register(JudgeCalibration)
class JudgeCalibrationAdmin(admin.ModelAdmin):
    list_display = ("rubric_version", "config", "status", "kappa", "items", "flagged", "updated_at")
    list_filter = ("status", "flagged")
    list_select_related = ("rubric_version__rubric", "config")
    # Status moves through the calibration service, which measures kappa; not by hand here.
    readonly_fields = ("kappa", "items", "window_kappa", "verdicts_seen", "approved_at")


@admin.register(OnlineRuleHour)
class OnlineRuleHourAdmin(ReadOnlyAdmin):
    """Counted by online judging; read here, never edited."""

    list_display = ("hour", "rubric", "project", "outcome", "count")
    list_filter = ("outcome",)
    list_select_related = ("rubric", "project")


@admin.register(TraceOnlineDecision)
class TraceOnlineDecisionAdmin(ReadOnlyAdmin):
    list_display = ("trace", "rubric", "outcome", "task_type", "decided_at")
    list_filter = ("outcome",)
    list_select_related = ("trace", "rubric")
    raw_id_fields = ("trace",)


@admin.register(AlignmentProposal)
class AlignmentProposalAdmin(ReadOnlyAdmin):
    """Drafted revisions of a judge version; approved on their page, through calibration."""

    list_display = ("pk", "source_version", "proposed_version", "status", "created_at")
    list_filter = ("status",)
    raw_id_fields = ("source_version", "proposed_version", "config")
