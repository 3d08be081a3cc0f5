"""The trace and session pages: a trace or a conversation with what every stage said of it."""
