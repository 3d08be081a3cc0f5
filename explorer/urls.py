"""The pages that show a trace with what judges and people said of it, in the `explorer`
namespace. They are served under /traces/ (evalsite/urls.py), beside traces' own pages, so
their addresses are the ones links and bookmarks already hold."""

from django.urls import path

from explorer import deletion_views, pair_views, session_views, views

app_name = "explorer"
urlpatterns = [
    path("", views.trace_list, name="list"),
    path("delete/", deletion_views.traces_delete, name="traces_delete"),
    path("pair/", pair_views.trace_pair, name="pair"),
    path("pair/queue/", pair_views.trace_pair_queue, name="pair_queue"),
    path("sessions/", session_views.session_list, name="session_list"),
    path("sessions/<int:session_id>/", session_views.session_detail, name="session_detail"),
    path("<int:trace_id>/", views.trace_detail, name="detail"),
    path("<int:trace_id>/tree/", views.trace_tree_rows, name="tree_rows"),
    path("<int:trace_id>/delete/", deletion_views.trace_delete, name="trace_delete"),
]
