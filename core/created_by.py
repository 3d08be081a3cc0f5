"""The two columns most rows people make carry: who made the row, and when."""

from django.conf import settings
from django.db import models


class CreatedBy(models.Model):
    """Who made the row and when; the row stays when its author's account is removed."""

    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True
