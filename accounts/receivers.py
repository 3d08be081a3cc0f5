"""A token revoked, or a user deactivated or given other roles, counts from the next request:
the per-process token cache is emptied (other processes look again within seconds)."""

from django.contrib.auth import get_user_model
from django.db.models.signals import m2m_changed, post_delete, post_save
from django.dispatch import receiver

from accounts.authentication import token_cache
from accounts.models import ApiToken

User = get_user_model()


@receiver(post_save, sender=ApiToken, dispatch_uid="accounts.token_saved")
@receiver(post_delete, sender=ApiToken, dispatch_uid="accounts.token_deleted")
@receiver(post_save, sender=User, dispatch_uid="accounts.user_saved")
@receiver(post_delete, sender=User, dispatch_uid="accounts.user_deleted")
@receiver(m2m_changed, sender=User.groups.through, dispatch_uid="accounts.groups_changed")
def token_cache_clear(sender, **kwargs):
    token_cache.clear()
