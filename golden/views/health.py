"""The dataset health page: size against guidance, coverage, run history."""

from django.shortcuts import render

from accounts.roles import ANNOTATOR, require_role
from golden.selectors import dataset_health
from traces.selectors import sees_held_out


@require_role(ANNOTATOR)
def dataset_health_page(request):
    health = dataset_health(request.user)
    charts = {
        "size": health["size"],
        "guidance": health["guidance"],
        "task_types": health["task_types"],
        "failure_modes": health["failure_modes"],
        "show_held_out": sees_held_out(request.user),
    }
    return render(request, "golden/health.html", {"health": health, "charts": charts})
