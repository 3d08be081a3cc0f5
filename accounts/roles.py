"""Roles are Django groups. A curator can do all an annotator can; an admin all a curator can."""

from functools import wraps

from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied

ANNOTATOR = "annotator"
CURATOR = "curator"
ADMIN = "admin"
ROLE_ORDER = (ANNOTATOR, CURATOR, ADMIN)


def user_roles(user) -> frozenset[str]:
    """The roles a user holds, with the ones implied by higher roles."""
    if user is None or isinstance(user, AnonymousUser) or not user.is_authenticated:
        return frozenset()
    cached = getattr(user, "_evalsite_roles", None)
    if cached is not None:
        return cached
    if user.is_superuser:
        held = set(ROLE_ORDER)
    else:
        held = set(user.groups.filter(name__in=ROLE_ORDER).values_list("name", flat=True))
    highest = max((ROLE_ORDER.index(r) for r in held), default=-1)
    roles = frozenset(ROLE_ORDER[: highest + 1])
    user._evalsite_roles = roles
    return roles


def has_role(user, role: str) -> bool:
    return role in user_roles(user)


def require_role(role: str):
    """Page decorator: a logged-in user without the role gets 403."""

    def decorator(view):
        @wraps(view)
        def wrapped(request, *args, **kwargs):
            if not has_role(request.user, role):
                raise PermissionDenied(f"This page needs the {role} role.")
            return view(request, *args, **kwargs)

        return wrapped

    return decorator
