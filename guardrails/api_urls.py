from django.urls import path

from guardrails.api import GuardrailCheckApi

urlpatterns = [
    path("guardrails/check", GuardrailCheckApi.as_view(), name="api-guardrails-check"),
]
