from django.contrib import admin

from core.read_only_admin import ReadOnlyAdmin
from insights.models import SilentRuleAlert, Topic, TopicBuild, TraceTopic


# Every row here is written by topic builds and silent-rule checks.
@admin.register(TopicBuild)
class TopicBuildAdmin(ReadOnlyAdmin):
    list_display = ("project", "built_at", "trace_count", "duration_ms", "failure_share")
    exclude = ("vocabulary", "idf")


@admin.register(Topic)
class TopicAdmin(ReadOnlyAdmin):
    list_display = ("name", "build", "size", "failure_count", "is_new")
    exclude = ("centroid",)


@admin.register(TraceTopic)
class TraceTopicAdmin(ReadOnlyAdmin):
    list_display = ("trace", "topic", "distance", "failed", "on_arrival")
    raw_id_fields = ("trace", "topic")


@admin.register(SilentRuleAlert)
class SilentRuleAlertAdmin(ReadOnlyAdmin):
    list_display = ("rubric", "project", "raised_at", "cleared_at", "decisions", "top_reason")
