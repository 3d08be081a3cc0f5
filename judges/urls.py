from django.urls import include, path

from judges.views import rubrics, runs, sessions, setup, tools

app_name = "judges"
urlpatterns = [
    path("rubrics/", rubrics.rubric_list, name="rubric_list"),
    path("rubrics/new/", setup.rubric_new, name="rubric_new"),
    path("rubrics/new/preview/", setup.rubric_new_preview, name="rubric_new_preview"),
    path("configs/", setup.config_list, name="config_list"),
    path("tools/", tools.tool_catalogue, name="tool_catalogue"),
    path("rubrics/<int:rubric_id>/", rubrics.rubric_detail, name="rubric_detail"),
    path("rubrics/<int:rubric_id>/edit/", rubrics.rubric_edit, name="rubric_edit"),
    path("rubrics/<int:rubric_id>/preview/", rubrics.rubric_preview, name="rubric_preview"),
    path("rubrics/<int:rubric_id>/online/", rubrics.rubric_online_update, name="rubric_online"),
    path("runs/", runs.run_list, name="run_list"),
    path("runs/new/", runs.run_new, name="run_new"),
    path("runs/<int:run_id>/", runs.run_detail, name="run_detail"),
    path("runs/<int:run_id>/progress/", runs.run_progress, name="run_progress"),
    path("runs/<int:run_id>/cancel/", runs.run_cancel, name="run_cancel"),
    path("sessions/<int:session_id>/judge/", sessions.session_judge, name="session_judge"),
    path("adarubric/", include("judges.adaptive_rubrics.urls")),
]
