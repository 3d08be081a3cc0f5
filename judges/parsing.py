"""Judge replies parsed by the rubric's output format and validated (type, range, fields).

Nothing is guessed: a reply that does not fit is `unparseable`, a score outside the rubric's
range is `out_of_range`, and both keep the raw text for the person who reviews them.
"""

import json
import math
import re
from dataclasses import dataclass, field

from judges.models import OutputFormat, ParseStatus, RubricVersion, ScoreType

SCORE_LINE = re.compile(r"^\s*\**\s*Score\s*:\s*\**\s*(-?\d+(?:\.\d+)?)\s*\**\s*$", re.I)
CONTINUOUS_VALUES = (0.0, 0.5, 1.0)


@dataclass
class ParsedReply:
    status: str
    score: float | None = None
    explanation: str = ""
    cited_spans: list[str] = field(default_factory=list)
    criteria_results: list[dict] = field(default_factory=list)
    error: str = ""


class ReplyError(ValueError):
    """The reply does not have the shape the rubric asked for."""


def json_object(text: str) -> dict:
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = re.sub(r"^```\w*\s*|\s*```$", "", stripped)
    start, end = stripped.find("{"), stripped.rfind("}")
    if start == -1 or end < start:
        raise ReplyError("no JSON object in the reply")
    try:
        value = json.loads(stripped[start : end + 1])
    except ValueError as exc:
        raise ReplyError(f"invalid JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise ReplyError("the reply JSON is not an object")
    return value


def _number(value, name: str) -> float:
    # JSON true/false are ints in Python; a judge saying `true` did not give a score.
    if isinstance(value, bool) or not isinstance(value, int | float):
        if isinstance(value, str):
            try:
                value = float(value.strip())
            except ValueError:
                raise ReplyError(f"{name} is not a number: {value!r}") from None
        else:
            raise ReplyError(f"{name} is not a number: {value!r}")
    if not math.isfinite(value):
        raise ReplyError(f"{name} is not finite")
    return float(value)


def _text(value, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ReplyError(f"{name} is missing or empty")
    return value.strip()


def _parse_evaluation_summary(text: str) -> tuple[float, str, list[dict]]:
    summary = json_object(text).get("evaluation_summary")
    if not isinstance(summary, dict):
        raise ReplyError("evaluation_summary is missing")
    return (
        _number(summary.get("score"), "evaluation_summary.score"),
        _text(summary.get("explanation"), "evaluation_summary.explanation"),
        [],
    )


def _parse_score_reason(text: str) -> tuple[float, str, list[dict]]:
    reply = json_object(text)
    return _number(reply.get("score"), "score"), _text(reply.get("reason"), "reason"), []


def _parse_score_line(text: str) -> tuple[float, str, list[dict]]:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    match = SCORE_LINE.match(lines[-1]) if lines else None
    if not match:
        raise ReplyError("the last line is not `Score: N`")
    return float(match.group(1)), "\n".join(lines[:-1]).strip(), []


def _parse_criteria(text: str) -> tuple[float, str, list[dict]]:
    items = json_object(text).get("criteria")
    if not isinstance(items, list) or not items:
        raise ReplyError("criteria is missing or empty")
    results = []
    for index, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("met"), bool):
            raise ReplyError(f"criteria[{index}].met must be true or false")
        result = {"question": str(item.get("question", "")), "met": item["met"]}
        if isinstance(item.get("span"), str) and item["span"]:
            result["span"] = item["span"][:200]
        results.append(result)
    met = sum(1 for r in results if r["met"])
    explanation = "; ".join(f"{'yes' if r['met'] else 'no'}: {r['question']}" for r in results)
    return met / len(results), explanation, results


def _parse_bare_number(text: str) -> tuple[float, str, list[dict]]:
    stripped = text.strip().strip("`").strip()
    try:
        return float(stripped), "", []
    except ValueError:
        raise ReplyError(f"not a bare number: {stripped[:40]!r}") from None


PARSERS = {
    OutputFormat.EVALUATION_SUMMARY: _parse_evaluation_summary,
    OutputFormat.SCORE_REASON: _parse_score_reason,
    OutputFormat.SCORE_LINE: _parse_score_line,
    OutputFormat.CRITERIA: _parse_criteria,
    OutputFormat.BARE_NUMBER: _parse_bare_number,
}


def score_out_of_range(score: float, version: RubricVersion) -> str:
    """Why a score does not fit the rubric's score type and range, or "" when it does."""
    low, high = version.score_min, version.score_max
    if version.score_type == ScoreType.CRITERIA:
        return ""
    if not low <= score <= high:
        return f"score {score:g} is outside {low:g}–{high:g}"
    if version.score_type == ScoreType.BINARY and score not in (low, high):
        return f"score {score:g} is neither {low:g} nor {high:g}"
    if version.score_type == ScoreType.RANGE and not float(score).is_integer():
        return f"score {score:g} is not a whole number"
    if version.score_type == ScoreType.CONTINUOUS and score not in CONTINUOUS_VALUES:
        return f"score {score:g} is not 1.0, 0.5 or 0.0"
    return ""


def criteria_weighted_score(results: list[dict], criteria: list[dict]) -> float:
    """The weighted share of criteria met; a question the rubric does not list weighs 1."""
    weights = {
        str(c.get("question", "")): float(c.get("weight", 1) or 1)
        for c in criteria or []
        if isinstance(c, dict)
    }
    total = sum(weights.get(r["question"], 1.0) for r in results)
    met = sum(weights.get(r["question"], 1.0) for r in results if r["met"])
    return met / total if total else 0.0


def reply_parse(text: str, version: RubricVersion, span_names: list[str] = ()) -> ParsedReply:
    """Parse and validate one judge reply; cited spans are the span names its reason mentions."""
    parser = PARSERS.get(version.output_format)
    if parser is None:
        return ParsedReply(ParseStatus.UNPARSEABLE, error=f"unknown format {version.output_format}")
    try:
        score, explanation, criteria = parser(text)
    except ReplyError as exc:
        return ParsedReply(ParseStatus.UNPARSEABLE, error=str(exc))
    if criteria and version.criteria:
        score = criteria_weighted_score(criteria, version.criteria)
    cited = [name for name in dict.fromkeys(span_names) if name and name in explanation]
    # Each criterion names the span that settles it; those are cited too.
    settling = [r["span"] for r in criteria if r.get("span") in span_names]
    cited = list(dict.fromkeys(cited + settling))
    problem = score_out_of_range(score, version)
    if problem:
        return ParsedReply(
            ParseStatus.OUT_OF_RANGE, explanation=explanation, cited_spans=cited, error=problem
        )
    return ParsedReply(
        ParseStatus.OK,
        score=score,
        explanation=explanation,
        cited_spans=cited,
        criteria_results=criteria,
    )
