from django.urls import path

from traces import masking_views, views

# Served under /traces/ beside explorer's pages (evalsite/urls.py).
app_name = "traces"
urlpatterns = [
    path("upload/", views.trace_upload, name="upload"),
    path("projects/", views.project_list, name="projects"),
    path("projects/<slug:slug>/masking/", masking_views.project_masking, name="project_masking"),
    path(
        "projects/<slug:slug>/masking/builtins/",
        masking_views.project_masking_builtins,
        name="project_masking_builtins",
    ),
    path(
        "projects/<slug:slug>/masking/<int:rule_id>/",
        masking_views.project_masking_rule,
        name="project_masking_rule",
    ),
    path("<int:trace_id>/spans/<int:span_pk>/", views.span_body, name="span_body"),
    path(
        "<int:trace_id>/spans/<int:span_pk>/raw/<str:field>/",
        views.span_value_raw,
        name="span_value_raw",
    ),
]
