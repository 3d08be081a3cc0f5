from django.conf import settings

from accounts.roles import user_roles


def site(request):
    """Values every page needs: the roles of the person and whether scores are simulated."""
    roles = user_roles(request.user) if request.user.is_authenticated else frozenset()
    return {"judge_simulated": settings.JUDGE_SIMULATED, "roles": roles}
