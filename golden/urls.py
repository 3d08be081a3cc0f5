from django.urls import path

from golden import views, views_collect, views_health, views_versions
from golden.evals import views as eval_views

app_name = "golden"
urlpatterns = [
    path("", views.example_list, name="example_list"),
    path("examples/new/", views.example_create, name="example_create"),
    path("examples/<int:pk>/", views.example_detail, name="example_detail"),
    path("examples/<int:pk>/edit/", views.example_edit, name="example_edit"),
    path("collect/", views_collect.collect_filter, name="collect_filter"),
    path("collect/<int:trace_id>/", views_collect.collect_trace, name="collect_trace"),
    path("promote/", views.promote_list, name="promote_list"),
    path("promote/<int:item_id>/", views.promote_item, name="promote_item"),
    path("held-out/", views.held_out, name="held_out"),
    path("health/", views_health.dataset_health_page, name="health"),
    path("versions/", views_versions.version_list, name="version_list"),
    path("versions/new/", views_versions.version_create, name="version_create"),
    path("versions/diff/", views_versions.version_diff, name="version_diff"),
    path("versions/<int:pk>/", views_versions.version_detail, name="version_detail"),
    path(
        "versions/<int:pk>/export/<str:part>.jsonl",
        views_versions.version_export,
        name="version_export",
    ),
    path("import/", views_versions.dataset_import, name="import"),
    path("evals/", eval_views.eval_run_list_page, name="eval_run_list"),
    path("evals/compare/", eval_views.eval_run_compare_page, name="eval_run_compare"),
]
