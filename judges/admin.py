from django.contrib import admin

from judges.adaptive_rubrics.models import TaskTypeAssignment, TaskTypeRule
from judges.guardrails.models import GuardrailDecision, GuardrailPolicy
from judges.models import (
    JudgeCalibration,
    JudgeConfig,
    JudgeRun,
    Judgment,
    OnlineRuleHour,
    RedFlag,
    RedFlagCheck,
    Rubric,
    RubricVersion,
    ToolEffect,
    TraceOnlineDecision,
    Verdict,
)
from judges.trajectory.effects import tool_effect_set


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
class RubricVersionAdmin(admin.ModelAdmin):
    list_display = ("rubric", "number", "status", "score_type", "output_format")
    list_select_related = ("rubric",)

    # Versions are immutable: judgments point at the exact text they used. Edit on the rubric
    # page, which saves a new version.
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


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


@admin.register(RedFlag)
class RedFlagAdmin(admin.ModelAdmin):
    list_display = ("trace", "kind", "span", "created_at")
    list_filter = ("kind",)
    raw_id_fields = ("trace", "span")


@admin.register(RedFlagCheck)
class RedFlagCheckAdmin(admin.ModelAdmin):
    list_display = ("trace", "checked_at")
    raw_id_fields = ("trace",)


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


@admin.register(ToolEffect)
class ToolEffectAdmin(admin.ModelAdmin):
    """The tool catalogue: a curator marks each tool as reading or writing state."""

    list_display = ("tool", "project", "effect", "source", "updated_by", "updated_at")
    list_filter = ("effect", "source", "project")
    list_select_related = ("project", "updated_by")
    search_fields = ("tool",)
    fields = ("project", "tool", "effect", "source", "definition", "updated_by")
    readonly_fields = ("source", "definition", "updated_by")

    def save_model(self, request, obj, form, change):
        # Through the service, so the change is audited and marked as the curator's.
        saved = tool_effect_set(
            project=obj.project, tool=obj.tool, effect=obj.effect, user=request.user
        )
        obj.pk, obj.source, obj.updated_by = saved.pk, saved.source, saved.updated_by


@admin.register(GuardrailDecision)
class GuardrailDecisionAdmin(admin.ModelAdmin):
    """Decisions agents recorded; read-only (thresholds change on the guardrails page, audited)."""

    list_display = ("created_at", "project", "trace_external_id", "decision", "blocked_by")
    list_filter = ("decision", "blocked_by", "project")
    search_fields = ("trace_external_id", "next_tool")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(GuardrailPolicy)
class GuardrailPolicyAdmin(admin.ModelAdmin):
    """Read-only here: thresholds change on the guardrails page, where each change is audited."""

    list_display = ("project", "loop_repeats", "max_steps", "updated_at")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(OnlineRuleHour)
class OnlineRuleHourAdmin(admin.ModelAdmin):
    """Counted by online judging; read here, never edited."""

    list_display = ("hour", "rubric", "project", "outcome", "count")
    list_filter = ("outcome",)
    list_select_related = ("rubric", "project")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(TraceOnlineDecision)
class TraceOnlineDecisionAdmin(admin.ModelAdmin):
    list_display = ("trace", "rubric", "outcome", "task_type", "decided_at")
    list_filter = ("outcome",)
    list_select_related = ("trace", "rubric")
    raw_id_fields = ("trace",)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
