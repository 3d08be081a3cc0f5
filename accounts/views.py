from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from accounts.models import ApiToken, TokenScope


def token_list(request):
    """The person's API tokens; a new token's raw value is shown once, right after creation."""
    new_token = None
    if request.method == "POST":
        name = request.POST.get("name", "").strip()
        scope = request.POST.get("scope", TokenScope.FULL)
        limit = ApiToken._meta.get_field("name").max_length
        if not name:
            messages.error(request, "Give the token a name, such as the agent or CI job using it.")
        elif len(name) > limit:
            messages.error(request, f"A token name has at most {limit} characters.")
        elif scope not in TokenScope.values:
            messages.error(request, f"A token may do one of: {', '.join(TokenScope.values)}.")
        else:
            _, new_token = ApiToken.generate(request.user, name, scope)
    tokens = ApiToken.objects.filter(user=request.user).order_by("-created_at")
    return render(
        request,
        "accounts/tokens.html",
        {"tokens": tokens, "new_token": new_token, "scopes": TokenScope.choices},
    )


@require_POST
def token_revoke(request, token_id: int):
    token = get_object_or_404(ApiToken, pk=token_id, user=request.user, revoked_at__isnull=True)
    token.revoked_at = timezone.now()
    token.save(update_fields=["revoked_at"])
    messages.success(request, f"Token {token.name} revoked.")
    return redirect("accounts:tokens")
