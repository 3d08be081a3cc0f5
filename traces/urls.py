from django.urls import path

from traces import session_views, views

app_name = "traces"
urlpatterns = [
    path("", views.trace_list, name="list"),
    path("upload/", views.trace_upload, name="upload"),
    path("projects/", views.project_list, name="projects"),
    path("sessions/", session_views.session_list, name="session_list"),
    path("sessions/<int:session_id>/", session_views.session_detail, name="session_detail"),
    path("<int:trace_id>/", views.trace_detail, name="detail"),
    path("<int:trace_id>/tree/", views.trace_tree_rows, name="tree_rows"),
    path("<int:trace_id>/spans/<int:span_pk>/", views.span_body, name="span_body"),
    path(
        "<int:trace_id>/spans/<int:span_pk>/raw/<str:field>/",
        views.span_value_raw,
        name="span_value_raw",
    ),
]
