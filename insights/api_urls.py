from django.urls import path

from insights.api import AgentDashboardApi

urlpatterns = [
    path("insights/agent/", AgentDashboardApi.as_view(), name="api-agent-dashboard"),
]
