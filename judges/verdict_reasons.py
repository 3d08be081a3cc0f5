"""Why a verdict needs a person. judges owns these; reviews adds reasons of its own
(reviews.models.ReviewReason) to file items no verdict asked for."""

from django.db import models


class VerdictReason(models.TextChoices):
    PASSES_DISAGREE = "passes_disagree", "Judge passes disagree"
    UNPARSEABLE = "unparseable", "Judge reply unusable"
    CALL_FAILED = "call_failed", "Judge call failed"
    RED_FLAG = "red_flag", "Outcome passes but a trajectory red flag fired"
    CRITERION_FLIP = "criterion_flip", "A criterion flipped between passes"
