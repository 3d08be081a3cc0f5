from django.urls import path

from judges import api
from judges.api_rubrics import RubricOnlineApi, RubricVersionCreateApi

urlpatterns = [
    path("judge-runs/", api.JudgeRunListCreateApi.as_view(), name="api-judge-runs"),
    path("judge-runs/<int:run_id>/", api.JudgeRunDetailApi.as_view(), name="api-judge-run"),
    path(
        "judge-runs/<int:run_id>/cancel/",
        api.JudgeRunCancelApi.as_view(),
        name="api-judge-run-cancel",
    ),
    path(
        "rubrics/<int:rubric_id>/versions/",
        RubricVersionCreateApi.as_view(),
        name="api-rubric-version-create",
    ),
    path("rubrics/<int:rubric_id>/online/", RubricOnlineApi.as_view(), name="api-rubric-online"),
]
