from django.shortcuts import render

from judges.models import JudgeRun, Rubric


def rubric_list(request):
    rubrics = Rubric.objects.order_by("name")
    return render(request, "judges/rubric_list.html", {"rubrics": rubrics})


def run_list(request):
    runs = JudgeRun.objects.select_related("rubric_version__rubric", "config").order_by("-pk")[:50]
    return render(request, "judges/run_list.html", {"runs": runs})
