"""A saved or deleted project is read afresh by this process's next ingest."""

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from traces.masking.cache import maskers
from traces.models import MaskingRule, Project
from traces.project_cache import failure_rules_by_project, projects_by_slug


@receiver(post_save, sender=Project, dispatch_uid="traces.project_saved")
@receiver(post_delete, sender=Project, dispatch_uid="traces.project_deleted")
def ingest_projects_forget(sender, **kwargs):
    projects_by_slug.clear()
    failure_rules_by_project.clear()


@receiver(post_save, sender=MaskingRule, dispatch_uid="traces.masking_rule_saved")
@receiver(post_delete, sender=MaskingRule, dispatch_uid="traces.masking_rule_deleted")
def masking_rules_forget(sender, **kwargs):
    maskers.clear()
