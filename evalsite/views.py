from django.shortcuts import render


def overview(request):
    return render(request, "evalsite/overview.html", {})
