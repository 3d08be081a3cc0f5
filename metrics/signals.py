"""Hand-offs from trajectory metrics' data to the stages on its right, sent inside the writing
transaction."""

from django.dispatch import Signal

# Sent with effect=<ToolEffect>, user, before={"effect", "source"} when a curator changes
# what a tool does; the audit log lives downstream.
tool_effect_changed = Signal()

# Sent with policy=<GuardrailPolicy>, user, before={...} or None when a curator changes a
# project's guardrail thresholds; the audit log lives downstream.
guardrail_policy_changed = Signal()
