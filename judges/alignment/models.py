"""Alignment proposals: a revised rubric version drafted from where a judge and people
disagreed, with the judge's agreement before and after. Models of the judges app
(judges/models.py imports this module so the app registers them)."""

from django.db import models

from core.created_by import CreatedBy


class AlignmentStatus(models.TextChoices):
    SCORING = "scoring", "Scoring old and new"
    DONE = "done", "Scored"
    FAILED = "failed", "Failed"


class AlignmentProposal(CreatedBy):
    source_version = models.ForeignKey(
        "judges.RubricVersion", on_delete=models.CASCADE, related_name="alignment_proposals"
    )
    config = models.ForeignKey("judges.JudgeConfig", on_delete=models.CASCADE, related_name="+")
    # The drafted version (status draft); a curator approves it like any other.
    proposed_version = models.OneToOneField(
        "judges.RubricVersion", on_delete=models.CASCADE, related_name="alignment_origin"
    )
    status = models.CharField(
        max_length=20, choices=AlignmentStatus.choices, default=AlignmentStatus.SCORING
    )
    # What the draft says, kept for the page: the criteria and the review items shown as
    # examples (never held out).
    criteria = models.JSONField(default=list)
    few_shot_item_ids = models.JSONField(default=list)
    # One row per labelled item: item, trace, people's score, old and new judge scores.
    cases = models.JSONField(default=list)
    # Kappa on the labelled items the draft does not show as examples, and on all of them.
    kappa_before = models.FloatField(null=True, blank=True)
    kappa_after = models.FloatField(null=True, blank=True)
    kappa_before_all = models.FloatField(null=True, blank=True)
    kappa_after_all = models.FloatField(null=True, blank=True)
    error = models.TextField(blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"Alignment of {self.source_version} → v{self.proposed_version.number}"
