"""A token revoked, or a user deactivated or given other roles, counts from the next request:
that user's tokens leave the per-process token cache (other processes look again within
seconds)."""

from django.contrib.auth import get_user_model
from django.db.models.signals import m2m_changed, post_delete, post_save
from django.dispatch import receiver

from accounts.models import ApiToken
from accounts.token_cache import token_cache

User = get_user_model()


@receiver(post_save, sender=ApiToken, dispatch_uid="accounts.token_saved")
@receiver(post_delete, sender=ApiToken, dispatch_uid="accounts.token_deleted")
def token_forget(sender, instance, **kwargs):
    token_cache.forget(token_id=instance.pk)


@receiver(post_save, sender=User, dispatch_uid="accounts.user_saved")
@receiver(post_delete, sender=User, dispatch_uid="accounts.user_deleted")
def user_tokens_forget(sender, instance, **kwargs):
    token_cache.forget(user_ids=[instance.pk])


@receiver(m2m_changed, sender=User.groups.through, dispatch_uid="accounts.groups_changed")
def group_members_tokens_forget(sender, instance, reverse, pk_set, **kwargs):
    # From the user's side the instance is the user; from the group's, pk_set holds the users
    # (None when a group is cleared: then every user may have lost a role).
    if not reverse:
        token_cache.forget(user_ids=[instance.pk])
    elif pk_set is not None:
        token_cache.forget(user_ids=pk_set)
    else:
        token_cache.clear()
