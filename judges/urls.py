from django.urls import include, path

from judges import views, views_sessions, views_setup, views_tools
from judges.guardrails.views import guardrail_policy

app_name = "judges"
urlpatterns = [
    path("rubrics/", views.rubric_list, name="rubric_list"),
    path("rubrics/new/", views_setup.rubric_new, name="rubric_new"),
    path("rubrics/new/preview/", views_setup.rubric_new_preview, name="rubric_new_preview"),
    path("configs/", views_setup.config_list, name="config_list"),
    path("tools/", views_tools.tool_catalogue, name="tool_catalogue"),
    path("guardrails/", guardrail_policy, name="guardrail_policy"),
    path("rubrics/<int:rubric_id>/", views.rubric_detail, name="rubric_detail"),
    path("rubrics/<int:rubric_id>/edit/", views.rubric_edit, name="rubric_edit"),
    path("rubrics/<int:rubric_id>/preview/", views.rubric_preview, name="rubric_preview"),
    path("rubrics/<int:rubric_id>/online/", views.rubric_online_update, name="rubric_online"),
    path("runs/", views.run_list, name="run_list"),
    path("runs/new/", views.run_new, name="run_new"),
    path("runs/<int:run_id>/", views.run_detail, name="run_detail"),
    path("runs/<int:run_id>/progress/", views.run_progress, name="run_progress"),
    path("runs/<int:run_id>/cancel/", views.run_cancel, name="run_cancel"),
    path("sessions/<int:session_id>/judge/", views_sessions.session_judge, name="session_judge"),
    path("adarubric/", include("judges.adaptive_rubrics.urls")),
]
