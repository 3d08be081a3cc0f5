"""The simulated judge's answer to a pairwise prompt: it reads both fenced trajectories with
the same rules it scores one trace by, and prefers the one the rules pass (the one with fewer
problems when both fail), else says equal. It knows nothing of which side is which run."""

import json
import re

from demo.simulator.scoring import TRACE_CLOSE, TRACE_OPEN, Finding, score_prompt

PAIRWISE_MARKER = '"overall"'
CRITERION_LINE = re.compile(r"^\s*Q\d+[:.]\s*(.+?)\s*$", re.MULTILINE)
OTHER = {"A": "B", "B": "A", "equal": "equal"}


def is_pairwise_prompt(system_text: str) -> bool:
    return PAIRWISE_MARKER in system_text and '"better"' in system_text


def _better(first: Finding, second: Finding) -> str:
    if first.passed != second.passed:
        return "A" if first.passed else "B"
    if len(first.reasons) != len(second.reasons):
        return "A" if len(first.reasons) < len(second.reasons) else "B"
    return "equal"


def _why(letter: str, first: Finding, second: Finding) -> str:
    if letter == "equal":
        return "Both trajectories reach the same result with the same problems, if any."
    worse = second if letter == "A" else first
    problems = "; ".join(worse.reasons) or "it has more problems"
    cited = worse.cited_spans
    suffix = f" See spans: {', '.join(cited)}." if cited else ""
    return f"Trajectory {OTHER[letter]} falls short: {problems}.{suffix}"


def pairwise_reply(system_text: str, user_text: str, flip: bool) -> str:
    """JSON in the pairwise rubric's shape; `flip` answers the other way (a judge that wavers)."""
    # Each fence is the text after the last opening marker before a closing one (the note
    # in front of a fence names the marker too).
    fenced = [
        chunk.rsplit(TRACE_OPEN, 1)[1]
        for chunk in user_text.split(TRACE_CLOSE)[:-1]
        if TRACE_OPEN in chunk
    ]
    if len(fenced) < 2:
        return json.dumps({"criteria": [], "overall": {"better": "equal", "reason": "One trace."}})
    before = user_text.split(TRACE_OPEN, 1)[0]
    first = score_prompt(f"{before}{TRACE_OPEN}{fenced[0]}{TRACE_CLOSE}")
    second = score_prompt(f"{before}{TRACE_OPEN}{fenced[1]}{TRACE_CLOSE}")
    letter = _better(first, second)
    if flip:
        letter = OTHER[letter]
    reason = _why(letter, first, second)
    questions = CRITERION_LINE.findall(system_text)
    return json.dumps(
        {
            "criteria": [{"question": q, "better": letter, "reason": reason} for q in questions],
            "overall": {"better": letter, "reason": reason},
        }
    )
