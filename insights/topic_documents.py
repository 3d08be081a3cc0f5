"""What a trace is about and how it went, as the tokens topics are found from.

A trace's document is the words of its task and final answer, its tool sequence (each tool,
each step from one tool to the next, the first tool), and its failure signals: red flags,
verdicts and their reasons, people's failure tags, end-user feedback and an unclean stop.
Structured tokens carry a prefix (`tool:`, `flag:`) so a word of the task never merges with
them; they are the ones that say how a trace went, so they count more than a word.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from judges.models import RubricVersion, Verdict, VerdictStatus
from metrics.models import RedFlag
from reviews.models import Annotation
from traces.models import Feedback, FeedbackKind, Span, SpanKind, SpanStatus, Trace
from traces.stop_reasons import UNCLEAN_KINDS, stop_reason_normalize

# Each structured token is repeated this many times: with idf, a shared tool step or red flag
# outweighs a shared word of the task, so groups follow how traces went.
SIGNAL_WEIGHT = 3
WORD = re.compile(r"[a-z][a-z_]{2,}")
READ_CHUNK = 1000


@dataclass
class TraceFacts:
    """The parts of one trace a topic is built from."""

    trace_id: int
    task: str = ""
    final_answer: str = ""
    task_type: str = ""
    stop_reason: str = ""
    tools: list[tuple[str, bool]] = field(default_factory=list)  # (tool, errored), in order
    red_flags: set[str] = field(default_factory=set)
    verdicts: list[str] = field(default_factory=list)  # "pass", "fail", "disputed"
    reasons: list[str] = field(default_factory=list)
    tags: set[str] = field(default_factory=set)
    feedback: list[str] = field(default_factory=list)  # "up", "down", or a category

    @property
    def failed(self) -> bool:
        """A failure signal: a red flag, a failing or disputed verdict, or a thumbs-down."""
        return bool(
            self.red_flags
            or any(verdict in ("fail", "disputed") for verdict in self.verdicts)
            or "down" in self.feedback
        )

    @property
    def tool_names(self) -> list[str]:
        return [tool for tool, _ in self.tools]


def words(text: str) -> list[str]:
    """Lower-case words of a text without stop words or identifiers (an order number groups
    nothing)."""
    return [w for w in WORD.findall((text or "").lower()) if w not in ENGLISH_STOP_WORDS]


# Each kind of signal as named in a token for TF-IDF, and in words for an embedding model.
SIGNAL_LABELS = {
    "flag": ("flag:", "red flag "),
    "verdict": ("verdict:", "verdict "),
    "tag": ("tag:", "tag "),
    "feedback": ("feedback:", "feedback "),
    "stop": ("stop:", "stopped: "),
    "type": ("type:", "task type "),
}


def _said_signals(facts: TraceFacts, in_words: bool) -> list[str]:
    """What checks, judges, people and the agent's stop said of the trace, each labelled."""
    label = {kind: names[1 if in_words else 0] for kind, names in SIGNAL_LABELS.items()}
    signals = [f"{label['flag']}{kind}" for kind in sorted(facts.red_flags)]
    signals += [f"{label['verdict']}{verdict}" for verdict in facts.verdicts]
    signals += [f"{label['tag']}{tag}" for tag in sorted(facts.tags)]
    signals += [f"{label['feedback']}{value}" for value in facts.feedback]
    stop = stop_reason_normalize(facts.stop_reason) if facts.stop_reason else ""
    if stop in UNCLEAN_KINDS:
        signals.append(f"{label['stop']}{stop}")
    if facts.task_type:
        signals.append(f"{label['type']}{facts.task_type}")
    return signals


def trace_tokens(facts: TraceFacts) -> list[str]:
    """The trace's document as tokens (sklearn's analyzer is given these as they are)."""
    signals = []
    names = facts.tool_names
    if names:
        signals.append(f"first:{names[0]}")
    else:
        signals.append("tools:none")
    signals += [f"tool:{name}" for name in dict.fromkeys(names)]
    signals += [f"step:{a}>{b}" for a, b in dict.fromkeys(zip(names, names[1:], strict=False))]
    signals += [f"repeat:{name}" for name in sorted({n for n in names if names.count(n) > 1})]
    signals += [f"error:{tool}" for tool, errored in facts.tools if errored]
    signals += _said_signals(facts, in_words=False)
    tokens = signals * SIGNAL_WEIGHT
    tokens += words(facts.task) + words(facts.final_answer)
    for reason in facts.reasons:
        tokens += words(reason)
    return tokens


def trace_text(facts: TraceFacts) -> str:
    """The trace's document as text for an embedding model: what was asked and answered, the
    tool sequence and the failure signals, in words."""
    names = facts.tool_names
    lines = [f"Task: {facts.task}", f"Final answer: {facts.final_answer}"]
    lines.append("Tools: " + (" -> ".join(names) if names else "none"))
    errored = [tool for tool, failed in facts.tools if failed]
    signals = [f"tool error in {tool}" for tool in dict.fromkeys(errored)]
    signals += _said_signals(facts, in_words=True)
    lines.append("Signals: " + (", ".join(signals) if signals else "none"))
    lines += [f"Judge's reason: {reason}" for reason in facts.reasons[:3]]
    return "\n".join(lines)


def _chunks(ids: list[int]):
    for start in range(0, len(ids), READ_CHUNK):
        yield ids[start : start + READ_CHUNK]


def traces_facts(trace_ids: list[int], *, judged: bool = True) -> dict[int, TraceFacts]:
    """The facts of many traces in a few queries per thousand traces. `judged=False` leaves out
    verdicts and people's tags: a trace that has just settled has none yet."""
    facts: dict[int, TraceFacts] = {}
    for chunk in _chunks(list(trace_ids)):
        for pk, task, answer, task_type, stop in Trace.objects.filter(pk__in=chunk).values_list(
            "pk", "task", "final_answer", "task_type", "stop_reason"
        ):
            facts[pk] = TraceFacts(pk, task or "", answer or "", task_type or "", stop or "")
        spans = (
            Span.objects.filter(trace_id__in=chunk, kind=SpanKind.TOOL)
            .order_by("trace_id", "position", "started_at")
            .values_list("trace_id", "tool_name", "name", "status")
        )
        for trace_id, tool_name, name, status in spans:
            facts[trace_id].tools.append((tool_name or name, status == SpanStatus.ERROR))
        for trace_id, kind in RedFlag.objects.filter(trace_id__in=chunk).values_list(
            "trace_id", "kind"
        ):
            facts[trace_id].red_flags.add(kind)
        if judged:
            _verdicts_add(facts, chunk)
            for trace_id, tags in Annotation.objects.filter(
                item__trace_id__in=chunk, undone_at__isnull=True
            ).values_list("item__trace_id", "failure_tags"):
                facts[trace_id].tags.update(str(tag) for tag in (tags or []) if tag)
        for trace_id, kind, value, category in Feedback.objects.filter(
            trace_id__in=chunk
        ).values_list("trace_id", "kind", "value", "category"):
            if kind == FeedbackKind.THUMBS and value is not None:
                facts[trace_id].feedback.append("up" if value >= 1 else "down")
            elif kind == FeedbackKind.CATEGORY and category:
                facts[trace_id].feedback.append(category.lower().replace(" ", "_")[:40])
    return facts


def _verdicts_add(facts: dict[int, TraceFacts], chunk: list[int]) -> None:
    rows = Verdict.objects.filter(trace_id__in=chunk, session__isnull=True).values_list(
        "trace_id", "status", "score", "reason", "rubric_version_id"
    )
    rows = list(rows)
    versions = {
        version.pk: version
        for version in RubricVersion.objects.filter(pk__in={row[4] for row in rows}).only(
            "pk", "score_type", "score_min", "score_max"
        )
    }
    by_trace: dict[int, list] = defaultdict(list)
    for trace_id, status, score, reason, version_id in rows:
        by_trace[trace_id].append((status, score, reason, versions.get(version_id)))
    for trace_id, verdicts in by_trace.items():
        for status, score, reason, version in verdicts:
            if status == VerdictStatus.DISPUTED:
                facts[trace_id].verdicts.append("disputed")
            elif status == VerdictStatus.AGREED and score is not None and version is not None:
                facts[trace_id].verdicts.append("pass" if version.score_passes(score) else "fail")
            if reason:
                facts[trace_id].reasons.append(reason)
