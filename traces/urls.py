from django.urls import path

from traces import views

# Served under /traces/ beside explorer's pages (evalsite/urls.py).
app_name = "traces"
urlpatterns = [
    path("upload/", views.trace_upload, name="upload"),
    path("projects/", views.project_list, name="projects"),
    path("<int:trace_id>/spans/<int:span_pk>/", views.span_body, name="span_body"),
    path(
        "<int:trace_id>/spans/<int:span_pk>/raw/<str:field>/",
        views.span_value_raw,
        name="span_value_raw",
    ),
]
