"""Routes under /traces/ that show what judges and people said; evalsite/urls.py serves them in
the `traces` namespace beside traces' own, so the addresses and their names are unchanged."""

from django.urls import path

from explorer import session_views, views

urlpatterns = [
    path("", views.trace_list, name="list"),
    path("sessions/", session_views.session_list, name="session_list"),
    path("sessions/<int:session_id>/", session_views.session_detail, name="session_detail"),
    path("<int:trace_id>/", views.trace_detail, name="detail"),
    path("<int:trace_id>/tree/", views.trace_tree_rows, name="tree_rows"),
]
