"""The agent dashboard's snapshot: the agent's own health, beside the judge's overview."""

from insights.agent_charts import (
    agent_cost_by_model_chart,
    agent_cost_by_version_chart,
    agent_error_rate_chart,
    agent_latency_chart,
    agent_tokens_by_model_chart,
    agent_volume_chart,
    tool_error_chart,
)
from insights.agent_stops import agent_stop_reason_chart
from insights.snapshots import ChartSnapshot

AGENT_DASHBOARD = ChartSnapshot(
    key="agent-dashboard-snapshot-v2",
    builders={
        "agent_volume": agent_volume_chart,
        "agent_latency": agent_latency_chart,
        "agent_error_rate": agent_error_rate_chart,
        "agent_stop_reasons": agent_stop_reason_chart,
        "tool_errors": tool_error_chart,
        "agent_tokens_by_model": agent_tokens_by_model_chart,
        "agent_cost_by_model": agent_cost_by_model_chart,
        "agent_cost_by_version": agent_cost_by_version_chart,
    },
)
