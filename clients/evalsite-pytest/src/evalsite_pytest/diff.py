"""A failed trajectory check as text a developer reads in the test report: why the pass rule
failed it, the reference steps and the agent's calls side by side in the matcher's alignment,
each differing parameter with what was expected, what came, and the rule that decided."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evalsite_pytest.checks import TrajectoryCheck

VALUE_WIDTH = 60
# = aligned and right; ~ aligned, a parameter differs; - reference step the agent never made;
# + a call no reference step pairs with.
SAME, DIFFERS, MISSING, EXTRA = "=", "~", "-", "+"


def _value(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= VALUE_WIDTH else text[: VALUE_WIDTH - 3] + "..."


def _call_text(tool: str, inputs: Any) -> str:
    if not isinstance(inputs, dict):
        return f"{tool}({_value(inputs)})"
    return f"{tool}(" + ", ".join(f"{k}={_value(v)}" for k, v in inputs.items()) + ")"


def _step_number(reference: list[dict], index: int) -> int:
    return int(reference[index].get("step") or index + 1)


def _rendered(lines: list) -> list[str]:
    """Rows `(mark, reference, agent)` in two columns as wide as the widest reference."""
    width = max((len(line[1]) for line in lines if isinstance(line, tuple)), default=0)
    return [
        f"  {line[0]} {line[1]:<{width}} | {line[2]}".rstrip() if isinstance(line, tuple) else line
        for line in lines
    ]


def _parameter_lines(reference_step: dict, parameters: list[dict]) -> list[str]:
    expected = reference_step.get("inputs") or {}
    lines = []
    for p in parameters:
        if p["score"] >= 1.0:
            continue
        shown = "(left out)" if p["method"] == "missing" else _value(p["actual"])
        lines.append(
            f"      {p['name']}: expected {_value(expected.get(p['name']))}, got {shown}"
            f" ({p['method']}, score {p['score']:g})"
        )
    return lines


def trajectory_diff(check: TrajectoryCheck) -> str:
    score, reference = check.score, check.reference
    by_number = {_step_number(reference, i): i for i in range(len(reference))}
    scored = {s.span_id: s for s in score.steps}
    name = check.example_key + (f"@{check.variant}" if check.variant else "")
    lines: list = [
        f"trajectory of golden example {name!r} does not pass (matcher: {score.matcher})"
    ]
    lines += [f"  {reason}" for reason in check.decision.reasons]
    lines += [f"  undecided: {reason}" for reason in check.decision.undecided]
    if check.variant:
        lines.append(
            "  (a fault variant: a model judges its expected behaviour in an eval run; "
            "here its calls meet the example's red-flag rules)"
        )
    lines.append((" ", "reference", "agent"))
    aligned_refs = {
        by_number[s.reference_step]
        for s in score.steps
        if s.reference_step in by_number and s.parameter_accuracy is not None
    }
    shown_refs: set[int] = set()

    def missing_before(limit: int) -> None:
        for index in range(limit):
            if index not in aligned_refs and index not in shown_refs:
                shown_refs.add(index)
                step = reference[index]
                note = " (optional)" if step.get("optional") is True else ""
                text = _call_text(step.get("tool", ""), step.get("inputs") or {})
                lines.append((MISSING, f"{_step_number(reference, index)}. {text}", note))

    flags_at: dict[str, list[str]] = {}
    for flag in check.red_flags:
        flags_at.setdefault(flag.span_id, []).append(f"{flag.kind}: {flag.detail}")
    for number, step in enumerate(check.steps, start=1):
        call = f"{number}. {_call_text(step.tool, step.inputs)}"
        if step.failed:
            call += "  [failed]"
        step_score = scored.get(step.span_id)
        ref_index = by_number.get(step_score.reference_step) if step_score else None
        if step_score is None:
            lines.append((" ", "(a failed try, retried)", call))
        elif ref_index is None or step_score.parameter_accuracy is None:
            if ref_index is not None:
                missing_before(ref_index)
            lines.append((EXTRA, "", call + ("" if step_score.counted else "  (not counted)")))
        else:
            missing_before(ref_index)
            shown_refs.add(ref_index)
            ref = reference[ref_index]
            left = f"{_step_number(reference, ref_index)}. " + _call_text(
                ref.get("tool", ""), ref.get("inputs") or {}
            )
            differing = _parameter_lines(ref, step_score.parameters)
            lines.append((DIFFERS if differing else SAME, left, call))
            lines += differing
        lines += [f"      red flag {text}" for text in flags_at.pop(step.span_id, [])]
    missing_before(len(reference))
    for texts in flags_at.values():
        lines += [f"  red flag {text}" for text in texts]
    if score.reason:
        lines.append(f"  matcher: {score.reason}")
    return "\n".join(_rendered(lines))
