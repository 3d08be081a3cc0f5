from django.urls import path

from golden.evals import pairwise_views
from golden.evals import views as eval_views
from golden.views import collect, deletion, examples, health, versions

app_name = "golden"
urlpatterns = [
    path("", examples.example_list, name="example_list"),
    path("examples/new/", examples.example_create, name="example_create"),
    path("examples/<int:pk>/", examples.example_detail, name="example_detail"),
    path("examples/<int:pk>/edit/", examples.example_edit, name="example_edit"),
    path("examples/<int:pk>/delete/", deletion.example_delete, name="example_delete"),
    path("examples/delete/", deletion.examples_delete, name="examples_delete"),
    path("collect/", collect.collect_filter, name="collect_filter"),
    path("collect/<int:trace_id>/", collect.collect_trace, name="collect_trace"),
    path("promote/", examples.promote_list, name="promote_list"),
    path("promote/<int:item_id>/", examples.promote_item, name="promote_item"),
    path("held-out/", examples.held_out, name="held_out"),
    path("health/", health.dataset_health_page, name="health"),
    path("versions/", versions.version_list, name="version_list"),
    path("versions/new/", versions.version_create, name="version_create"),
    path("versions/diff/", versions.version_diff, name="version_diff"),
    path("versions/<int:pk>/", versions.version_detail, name="version_detail"),
    path(
        "versions/<int:pk>/export/<str:part>.jsonl",
        versions.version_export,
        name="version_export",
    ),
    path("import/", versions.dataset_import, name="import"),
    path("evals/", eval_views.eval_run_list_page, name="eval_run_list"),
    path("evals/compare/", eval_views.eval_run_compare_page, name="eval_run_compare"),
    path("evals/compare/pairs/", pairwise_views.eval_run_pairs_send, name="eval_run_pairs_send"),
]
