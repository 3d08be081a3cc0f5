from django.contrib import admin

from core.read_only_admin import ImmutableAdmin, ReadOnlyAdmin
from traces.models import (
    Feedback,
    MaskingRule,
    MaskingRuleChange,
    PendingSpanLog,
    Project,
    Session,
    Span,
    Trace,
    TraceAttributeValue,
    TraceDeletion,
    TraceSearchDocument,
    TraceTag,
)


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "created_at")
    prepopulated_fields = {"slug": ("name",)}


@admin.register(Trace)
class TraceAdmin(admin.ModelAdmin):
    list_display = (
        "external_id",
        "project",
        "agent_name",
        "agent_version",
        "span_count",
        "started_at",
    )
    list_filter = ("project", "source_format", "task_type")
    search_fields = ("external_id", "task")
    list_select_related = ("project",)
    raw_id_fields = ("session",)


@admin.register(Session)
class SessionAdmin(admin.ModelAdmin):
    list_display = ("external_id", "project", "created_at")
    list_filter = ("project",)
    search_fields = ("external_id",)
    list_select_related = ("project",)


@admin.register(Span)
class SpanAdmin(admin.ModelAdmin):
    list_display = ("name", "kind", "trace", "tool_name", "status")
    list_filter = ("kind", "status")
    raw_id_fields = ("trace",)


@admin.register(Feedback)
class FeedbackAdmin(admin.ModelAdmin):
    list_display = ("trace", "name", "kind", "value", "category", "end_user", "created_at")
    list_filter = ("kind", "name")
    raw_id_fields = ("trace",)


@admin.register(TraceSearchDocument)
class TraceSearchDocumentAdmin(ReadOnlyAdmin):
    """Read-only: documents are built by the search sweep, never by hand."""

    list_display = ("trace", "spans_received_at", "built_at")
    exclude = ("document",)
    raw_id_fields = ("trace",)


@admin.register(TraceAttributeValue)
class TraceAttributeValueAdmin(ReadOnlyAdmin):
    """Read-only: rebuilt with the trace's search document."""

    list_display = ("trace", "key", "value_text", "value_number")
    search_fields = ("key",)
    raw_id_fields = ("trace",)


@admin.register(PendingSpanLog)
class PendingSpanLogAdmin(admin.ModelAdmin):
    """Log records waiting for their span: a long list means spans that never came."""

    list_display = ("trace_external_id", "span_id", "project", "received_at")
    list_filter = ("project",)
    search_fields = ("trace_external_id", "span_id")
    list_select_related = ("project",)


@admin.register(MaskingRule)
class MaskingRuleAdmin(ImmutableAdmin):
    """Read here; changed on the project's masking page or API, which keep the audit."""

    list_display = ("project", "kind", "detector", "pattern", "label", "action", "enabled")
    list_filter = ("project", "kind", "action", "enabled")
    list_select_related = ("project",)


@admin.register(MaskingRuleChange)
class MaskingRuleChangeAdmin(MaskingRuleAdmin):
    """Who changed which masking rule, when: never edited."""

    list_display = ("at", "project", "username", "action", "rule_id")
    list_filter = ("project", "action")


@admin.register(TraceDeletion)
class TraceDeletionAdmin(ReadOnlyAdmin):
    """Read-only: started and stopped from the trace list and its deletion page."""

    list_display = ("pk", "status", "matched", "deleted", "kept", "created_by", "created_at")
    list_filter = ("status",)
    list_select_related = ("created_by",)


@admin.register(TraceTag)
class TraceTagAdmin(ReadOnlyAdmin):
    """Read-only: tags come with the spans that carry them."""

    list_display = ("name", "trace")
    search_fields = ("name",)
    raw_id_fields = ("trace",)
