from django.contrib import admin

from traces.models import Feedback, Project, Session, Span, Trace


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
