"""Trajectory metrics and their data: steps, matchers, parameter equivalence, red flags, tool
effects, component attribution. Deterministic: where meaning needs an LLM, judges asks it and
passes the answer in (a path judge, a parameter judge)."""
