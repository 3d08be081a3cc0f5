from django.shortcuts import render

from accounts.roles import CURATOR, require_role
from golden.models import GoldenExample


@require_role(CURATOR)
def example_list(request):
    examples = GoldenExample.objects.order_by("-created_at")[:100]
    return render(request, "golden/example_list.html", {"examples": examples})
