"""The guardrails page, served among the judges pages as `judges:guardrail_policy`
(evalsite/urls.py composes them)."""

from django.urls import path

from guardrails.views import guardrail_policy

urlpatterns = [
    path("guardrails/", guardrail_policy, name="guardrail_policy"),
]
