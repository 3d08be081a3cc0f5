"""Fault kinds side by side: how a baseline and a candidate fared when a fault was injected."""

from __future__ import annotations


def fault_kinds_compare(baseline: dict, candidate: dict) -> dict:
    """Per fault kind met by either run: each run's trials, passed and pass rate (None when
    that run never met the kind), and the change in pass rate."""
    base = baseline.get("fault_kinds") or {}
    cand = candidate.get("fault_kinds") or {}
    rows = {}
    for kind in sorted(set(base) | set(cand)):
        before, after = base.get(kind), cand.get(kind)
        rates = [(side or {}).get("pass_rate") for side in (before, after)]
        change = None if None in rates else rates[1] - rates[0]
        rows[kind] = {"baseline": before, "candidate": after, "pass_rate_change": change}
    return rows
