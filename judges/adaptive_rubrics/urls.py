from django.urls import path

from judges.adaptive_rubrics import views

# Included into the judges namespace by judges/urls.py.
urlpatterns = [
    path("task-types/", views.task_types, name="adaptive_task_types"),
    path("task-types/rules/", views.task_type_rule_add, name="adaptive_rule_add"),
    path("task-types/corrections/", views.task_type_correct, name="adaptive_correct"),
    path("task-types/generate/", views.criteria_generate, name="adaptive_generate"),
    path("rubrics/<int:rubric_id>/criteria/", views.rubric_criteria, name="adaptive_criteria"),
    path(
        "rubrics/<int:rubric_id>/versions/<int:number>/approve/",
        views.rubric_version_approve_view,
        name="adaptive_approve",
    ),
]
