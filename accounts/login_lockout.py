"""Login lockouts (django-axes): an account after LOGIN_FAILURE_LIMIT wrong passwords, a
client address only after LOGIN_ADDRESS_FAILURE_LIMIT, much higher, so one person's typos
never lock out a colleague behind the same proxy while a password sprayer is still stopped.

Axes compares one failure count to one limit; this handler gives it the account's count, or
the account limit itself once the address passed its own.
"""

from axes.attempts import get_cool_off_threshold
from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Sum


def _failures(request, **match) -> int:
    attempts = AccessAttempt.objects.filter(
        attempt_time__gte=get_cool_off_threshold(request), **match
    )
    return attempts.aggregate(total=Sum("failures_since_start"))["total"] or 0


class LoginLockoutHandler(AxesDatabaseHandler):
    def get_failures(self, request, credentials=None) -> int:
        username = get_client_username(request, credentials)
        by_account = _failures(request, username=username) if username is not None else 0
        by_address = _failures(request, ip_address=request.axes_ip_address)
        if by_address >= settings.LOGIN_ADDRESS_FAILURE_LIMIT:
            return max(by_account, settings.AXES_FAILURE_LIMIT)
        return by_account

    def reset_user_attempts(self, request, credentials=None) -> int:
        """A right password clears its own account's failures only: a colleague's login from
        the same address must not wipe the count of an account under attack."""
        username = get_client_username(request, credentials)
        if username is None:
            return 0
        count, _ = AccessAttempt.objects.filter(username=username).delete()
        return count
