"""Runtime guardrails: the red-flag checks asked before an agent's next tool call."""
