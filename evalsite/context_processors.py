from django.conf import settings

from accounts.roles import user_roles


def site(request):
    """Values every page needs: the roles of the person and whether scores are simulated."""
    # DRF views render templates too, and there an anonymous request's user is None.
    user = getattr(request, "user", None)
    roles = user_roles(user) if user is not None and user.is_authenticated else frozenset()
    return {"judge_simulated": settings.JUDGE_SIMULATED, "roles": roles}
