"""Aggregates behind the overview page: one selectors module per chart family."""
