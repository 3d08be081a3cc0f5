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
        change = (
            after["pass_rate"] - before["pass_rate"]
            if before is not None and after is not None
            else None
        )
        rows[kind] = {"baseline": before, "candidate": after, "pass_rate_change": change}
    return rows


def fault_kind_lines(report: dict) -> list[str]:
    """The fault-kind table as lines for the terminal."""
    lines = []
    for kind, row in (report.get("fault_kinds") or {}).items():
        cells = []
        for role in ("baseline", "candidate"):
            side = row[role]
            cells.append(
                f"{role} {side['passed']}/{side['trials']} passed" if side else f"{role} not met"
            )
        lines.append(f"fault {kind:<14} " + ", ".join(cells))
    return lines
