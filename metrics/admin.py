from django.contrib import admin

from core.read_only_admin import ReadOnlyAdmin
from metrics.effects import tool_effect_set
from metrics.models import GuardrailPolicy, RedFlag, RedFlagCheck, ToolEffect


@admin.register(RedFlag)
class RedFlagAdmin(admin.ModelAdmin):
    list_display = ("trace", "kind", "span", "created_at")
    list_filter = ("kind",)
    raw_id_fields = ("trace", "span")


@admin.register(RedFlagCheck)
class RedFlagCheckAdmin(admin.ModelAdmin):
    list_display = ("trace", "checked_at")
    raw_id_fields = ("trace",)


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


@admin.register(GuardrailPolicy)
class GuardrailPolicyAdmin(ReadOnlyAdmin):
    """Read-only here: thresholds change on the guardrails page, where each change is audited."""

    list_display = ("project", "loop_repeats", "max_steps", "updated_at")
