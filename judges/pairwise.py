"""The pairwise judge's prompt and reply: two trajectories of one task, read whole, answered
A / B / equal per criterion and overall.

A pairwise run asks each pair twice: pass 1 shows `trace` as A and `pair_trace` as B, pass 2
the other way round. Each reply is stored un-swapped, as what it says about the pair (the
preference for `pair_trace`: 0 `trace`, 0.5 equal, 1 `pair_trace`), with the letters it named
kept beside it, so judges.pairwise_verdicts can tell an answer that followed the trajectories
from one that followed the position.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from judges.models import ParseStatus, RubricVersion
from judges.parsing import ReplyError, json_object
from judges.prompts import (
    RenderedPrompt,
    fence_trace,
    fence_value,
    prompt_context,
    render_template,
    trace_text_budgeted,
)
from traces.models import Trace
from traces.reading import citation_names, traces_merged_members

LETTERS = ("A", "B", "equal")
TRACE, PAIR_TRACE, EQUAL = "trace", "pair_trace", "equal"
PREFERENCE_SCORE = {TRACE: 0.0, EQUAL: 0.5, PAIR_TRACE: 1.0}
SCORE_PREFERENCE = {score: name for name, score in PREFERENCE_SCORE.items()}
OVERALL = "Overall, which trajectory is better?"


def pass_swapped(pass_index: int) -> bool:
    """Odd passes show the pair the other way round: `pair_trace` as A."""
    return pass_index % 2 == 1


def _shown(pass_index: int, trace: Trace, pair_trace: Trace) -> tuple[Trace, Trace]:
    return (pair_trace, trace) if pass_swapped(pass_index) else (trace, pair_trace)


def pairwise_prompt_render(
    version: RubricVersion,
    trace: Trace,
    pair_trace: Trace,
    pass_index: int,
    spans: list | None = None,
    pair_spans: list | None = None,
) -> RenderedPrompt:
    """The prompt of one pass: both trajectories serialized as the single-trace judge reads
    one (each within the trace token budget), in the pass's order."""
    spans_of = {trace.pk: spans, pair_trace.pk: pair_spans}
    first, second = _shown(pass_index, trace, pair_trace)
    texts, cut, shown_spans = [], False, []
    for shown in (first, second):
        loaded = spans_of.get(shown.pk)
        if loaded is None:
            loaded = list(shown.spans.order_by("position", "pk"))
        text, truncated = trace_text_budgeted(shown, version.trace_format, spans=loaded)
        texts.append(fence_trace(text))
        cut = cut or truncated
        shown_spans += loaded
    context = prompt_context(
        version,
        task=first.task,
        trajectory_a=texts[0],
        trajectory_b=texts[1],
        final_answer_a=fence_value(first.final_answer),
        final_answer_b=fence_value(second.final_answer),
    )
    return RenderedPrompt(
        system=render_template(version.system_prompt, context),
        user=render_template(version.user_template, context),
        truncated=cut,
        span_names=tuple(
            name for _, name in citation_names(shown_spans, traces_merged_members((first, second)))
        ),
    )


@dataclass
class PairwiseReply:
    status: str
    # Per criterion, overall last: {"question", "shown", "preferred", "reason"}.
    answers: list[dict] = field(default_factory=list)
    error: str = ""

    @property
    def score(self) -> float | None:
        if self.status != ParseStatus.OK:
            return None
        return PREFERENCE_SCORE[self.answers[-1]["preferred"]]

    @property
    def explanation(self) -> str:
        return self.answers[-1]["reason"] if self.answers else ""


def _letter(value, name: str) -> str:
    text = str(value).strip() if isinstance(value, str) else ""
    for letter in LETTERS:
        if text.lower() == letter.lower():
            return letter
    raise ReplyError(f'{name} must be "A", "B" or "equal", not {value!r}')


def preference_of(letter: str, pass_index: int) -> str:
    """What a letter of this pass says about the pair: trace, pair_trace or equal."""
    if letter == "equal":
        return EQUAL
    first_is_trace = not pass_swapped(pass_index)
    return TRACE if (letter == "A") == first_is_trace else PAIR_TRACE


def pairwise_questions(version: RubricVersion) -> list[str]:
    """The version's criteria, then the overall question."""
    questions = [str(c.get("question", "")) for c in version.criteria or [] if isinstance(c, dict)]
    return [q for q in questions if q] + [OVERALL]


def pairwise_reply_parse(text: str, version: RubricVersion, pass_index: int) -> PairwiseReply:
    """A pairwise reply, validated and un-swapped. A criterion the rubric lists must be
    answered; the reply's own wording of it is matched by position."""
    try:
        reply = json_object(text)
        overall = reply.get("overall")
        if not isinstance(overall, dict):
            raise ReplyError("overall is missing")
        items = reply.get("criteria") or []
        if not isinstance(items, list):
            raise ReplyError("criteria must be a list")
        questions = pairwise_questions(version)
        if len(items) < len(questions) - 1:
            raise ReplyError(
                f"{len(questions) - 1} criteria asked, {len(items)} answered",
            )
        answers = []
        raw = [*items[: len(questions) - 1], overall]
        for index, (question, item) in enumerate(zip(questions, raw, strict=True)):
            name = "overall" if index == len(raw) - 1 else f"criteria[{index}]"
            if not isinstance(item, dict):
                raise ReplyError(f"{name} is not an object")
            letter = _letter(item.get("better"), f"{name}.better")
            answers.append(
                {
                    "question": question,
                    "shown": letter,
                    "preferred": preference_of(letter, pass_index),
                    "reason": str(item.get("reason") or "").strip()[:2000],
                }
            )
    except ReplyError as exc:
        return PairwiseReply(ParseStatus.UNPARSEABLE, error=str(exc))
    return PairwiseReply(ParseStatus.OK, answers)
