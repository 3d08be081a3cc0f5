from django.contrib import admin

from core.read_only_admin import ImmutableAdmin, ReadOnlyAdmin
from reviews.models import (
    Annotation,
    AuditEvent,
    Comment,
    ItemSkip,
    PairwiseComparison,
    Queue,
    ReviewItem,
    SavedView,
)


@admin.register(Queue)
class QueueAdmin(admin.ModelAdmin):
    list_display = ("name", "rubric", "project", "priority", "blind", "annotators_per_item")


@admin.register(ReviewItem)
class ReviewItemAdmin(admin.ModelAdmin):
    list_display = ("pk", "queue", "trace", "reason", "status", "claimed_by", "lock_expires_at")
    list_filter = ("status", "reason", "queue")
    raw_id_fields = ("trace", "verdict")


@admin.register(Annotation)
class AnnotationAdmin(admin.ModelAdmin):
    list_display = ("pk", "item", "annotator", "score", "blind", "created_at", "undone_at")
    raw_id_fields = ("item",)


@admin.register(Comment)
class CommentAdmin(admin.ModelAdmin):
    list_display = ("pk", "item", "author", "created_at")
    raw_id_fields = ("item",)


@admin.register(AuditEvent)
class AuditEventAdmin(ImmutableAdmin):
    """The audit log is append-only: services write it, nobody edits or removes a line."""

    list_display = ("created_at", "actor", "action", "object_type", "object_id")
    list_filter = ("action", "object_type")


@admin.register(ItemSkip)
class ItemSkipAdmin(admin.ModelAdmin):
    list_display = ("item", "user", "created_at")
    raw_id_fields = ("item",)


@admin.register(SavedView)
class SavedViewAdmin(admin.ModelAdmin):
    list_display = ("name", "user", "queue", "query")


@admin.register(PairwiseComparison)
class PairwiseComparisonAdmin(ReadOnlyAdmin):
    """Which trace of a pairwise item is the candidate, and on which side it was shown."""

    list_display = ("item", "source", "task_key", "candidate_on_left", "direction")
    list_filter = ("source", "direction")
    raw_id_fields = ("item", "baseline_trace", "candidate_trace")
