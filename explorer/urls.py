"""The pages that show a trace with what judges and people said of it, in the `explorer`
namespace. They are served under /traces/ (evalsite/urls.py), beside traces' own pages, so
their addresses are the ones links and bookmarks already hold."""

from django.urls import path

from explorer import deletion_views, pair_views, session_views, views

app_name = "explorer"
urlpatterns = [
    path("", views.trace_list, name="list"),
    path("delete/", deletion_views.traces_delete, name="traces_delete"),
    path(
        "delete/background/",
        deletion_views.traces_delete_background,
        name="traces_delete_background",
    ),
    path("deletions/", deletion_views.deletion_list, name="deletion_list"),
    path("deletions/<int:deletion_id>/", deletion_views.deletion_detail, name="deletion_detail"),
    path(
        "deletions/<int:deletion_id>/progress/",
        deletion_views.deletion_progress,
        name="deletion_progress",
    ),
    path("deletions/<int:deletion_id>/stop/", deletion_views.deletion_stop, name="deletion_stop"),
    path("pair/", pair_views.trace_pair, name="pair"),
    path("pair/queue/", pair_views.trace_pair_queue, name="pair_queue"),
    path("sessions/", session_views.session_list, name="session_list"),
    path("sessions/<int:session_id>/", session_views.session_detail, name="session_detail"),
    path("<int:trace_id>/", views.trace_detail, name="detail"),
    path("<int:trace_id>/tree/", views.trace_tree_rows, name="tree_rows"),
    path("<int:trace_id>/delete/", deletion_views.trace_delete, name="trace_delete"),
]
