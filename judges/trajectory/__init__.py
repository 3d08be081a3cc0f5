"""Trajectory metrics: matchers, parameter equivalence, red flags, component attribution."""
