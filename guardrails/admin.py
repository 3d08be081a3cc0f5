from django.contrib import admin

from core.read_only_admin import ReadOnlyAdmin
from guardrails.models import GuardrailDecision


@admin.register(GuardrailDecision)
class GuardrailDecisionAdmin(ReadOnlyAdmin):
    """Decisions agents recorded; read-only (thresholds change on the guardrails page, audited)."""

    list_display = ("created_at", "project", "trace_external_id", "decision", "blocked_by")
    list_filter = ("decision", "blocked_by", "project")
    search_fields = ("trace_external_id", "next_tool")
