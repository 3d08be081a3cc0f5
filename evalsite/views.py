from django.http import HttpResponseServerError
from django.shortcuts import render


def server_error(request):
    """The 500 page with the navigation; falls back to plain text if the page itself fails."""
    try:
        return render(request, "500.html", status=500)
    except Exception:  # noqa: BLE001 - the error page must not raise in turn
        return HttpResponseServerError("Server error: try again in a moment.")
