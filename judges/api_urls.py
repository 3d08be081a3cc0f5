from django.urls import path

from judges import api
from judges.guardrails.api import GuardrailCheckApi

urlpatterns = [
    path("judge-runs/", api.JudgeRunCreateApi.as_view(), name="api-judge-runs"),
    path("judge-runs/<int:run_id>/", api.JudgeRunDetailApi.as_view(), name="api-judge-run"),
    path(
        "judge-runs/<int:run_id>/cancel/",
        api.JudgeRunCancelApi.as_view(),
        name="api-judge-run-cancel",
    ),
    path("guardrails/check", GuardrailCheckApi.as_view(), name="api-guardrails-check"),
]
