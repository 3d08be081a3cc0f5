from django.contrib import admin, messages

from core.errors import ApplicationError
from core.read_only_admin import ReadOnlyAdmin
from golden.deletion import golden_examples_delete
from golden.models import (
    DatasetVersion,
    DatasetVersionEntry,
    EvalRun,
    EvalTrial,
    GoldenExample,
    ToolWorldCall,
)


@admin.register(GoldenExample)
class GoldenExampleAdmin(admin.ModelAdmin):
    list_display = ("pk", "task", "task_type", "origin", "held_out", "created_at")
    list_filter = ("held_out", "task_type", "origin", "adversarial_kind")
    search_fields = ("task",)
    raw_id_fields = ("source_trace", "source_review_item")

    # Through the service: audited, versions keep their copies, held-out synced once.
    def delete_model(self, request, obj):
        self.delete_queryset(request, GoldenExample.objects.filter(pk=obj.pk))

    def delete_queryset(self, request, queryset):
        try:
            golden_examples_delete(examples=queryset, user=request.user)
        except ApplicationError as exc:
            self.message_user(request, exc.message, level=messages.ERROR)


@admin.register(DatasetVersion)
class DatasetVersionAdmin(ReadOnlyAdmin):
    """Versions are made by dataset_version_create and never edited afterwards."""

    list_display = ("name", "example_count", "held_out_count", "content_hash", "created_at")


@admin.register(DatasetVersionEntry)
class DatasetVersionEntryAdmin(ReadOnlyAdmin):
    list_display = ("version", "example_key", "held_out")
    raw_id_fields = ("example",)


@admin.register(EvalRun)
class EvalRunAdmin(admin.ModelAdmin):
    list_display = ("name", "agent_version", "dataset_version", "trials_per_task", "is_noop")


@admin.register(EvalTrial)
class EvalTrialAdmin(admin.ModelAdmin):
    list_display = ("eval_run", "entry", "trial_index", "passed")
    raw_id_fields = ("trace", "entry")


@admin.register(ToolWorldCall)
class ToolWorldCallAdmin(ReadOnlyAdmin):
    """Calls a trial's tool world answered: a record of what happened, never edited."""

    list_display = ("trial", "sequence", "tool", "status", "transport")
    list_filter = ("status", "transport")
    raw_id_fields = ("trial",)
