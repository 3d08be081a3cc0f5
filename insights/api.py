"""The agent dashboard's figures over the API: the same snapshot the page draws."""

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsAnnotator
from insights.agent_dashboard import AGENT_DASHBOARD

CHART_OUT = inline_serializer(
    "AgentDashboardChart",
    {
        "key": serializers.CharField(),
        "title": serializers.CharField(),
        "note": serializers.CharField(),
        "columns": serializers.ListField(child=serializers.CharField()),
        "rows": serializers.ListField(child=serializers.ListField()),
    },
)


class AgentDashboardApi(APIView):
    """Per chart of the agent dashboard: its columns and rows (what its CSV holds)."""

    permission_classes = [IsAnnotator]

    @extend_schema(
        responses=inline_serializer(
            "AgentDashboard",
            {
                "built_at": serializers.DateTimeField(),
                "charts": serializers.ListField(child=CHART_OUT),
            },
        )
    )
    def get(self, request):
        snapshot = AGENT_DASHBOARD.get()
        charts = [
            {key: chart[key] for key in ("key", "title", "note", "columns", "rows")}
            for chart in snapshot["charts"]
        ]
        return Response({"built_at": snapshot["built_at"], "charts": charts})
