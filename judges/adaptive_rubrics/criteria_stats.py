"""Per-criterion statistics of a rubric version: flips between passes, people overturning it,
and criteria that answer the same almost always (vague or useless), with a rewrite suggestion.

Two queries however many traces: pass answers, and people's answers, which reviews gives in
answer to the criteria_answers_wanted signal (judges does not import reviews).
"""

from collections import defaultdict
from dataclasses import dataclass, field

from judges.models import Judgment, JudgmentStatus, ParseStatus, RubricVersion
from judges.signals import criteria_answers_wanted

SAME_ANSWER_SHARE = 0.95
MIN_ANSWERS = 10
FLIP_RATE_FLAG = 0.2
OVERTURN_RATE_FLAG = 0.3
MIN_REVIEWED = 5


@dataclass
class CriterionFlag:
    kind: str  # vague | unstable | overturned
    message: str


@dataclass
class CriterionStats:
    question: str
    evidence: str = ""
    weight: float = 1.0
    answers: int = 0
    yes: int = 0
    pairs: int = 0
    flips: int = 0
    reviewed: int = 0
    overturned: int = 0
    flags: list[CriterionFlag] = field(default_factory=list)

    @property
    def yes_rate(self) -> float | None:
        return self.yes / self.answers if self.answers else None

    @property
    def flip_rate(self) -> float | None:
        return self.flips / self.pairs if self.pairs else None

    @property
    def overturn_rate(self) -> float | None:
        return self.overturned / self.reviewed if self.reviewed else None


def _pass_answers(version: RubricVersion) -> dict[tuple, dict[str, list[bool]]]:
    """{(trace, run): {question: [met per pass]}} from the version's usable passes."""
    rows = Judgment.objects.filter(
        rubric_version=version, status=JudgmentStatus.DONE, parse_status=ParseStatus.OK
    ).values_list("trace_id", "run_id", "criteria_results")
    grouped: dict[tuple, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for trace_id, run_id, results in rows.iterator():
        for result in results or []:
            if isinstance(result, dict) and isinstance(result.get("met"), bool):
                grouped[(trace_id, run_id)][str(result.get("question", ""))].append(result["met"])
    return grouped


def _human_answers(version: RubricVersion) -> list[tuple[int, dict[str, bool]]]:
    """(trace, {question: met}) of every standing per-criterion answer people gave."""
    responses = criteria_answers_wanted.send(sender=RubricVersion, version=version)
    return [answer for _receiver, answers in responses for answer in answers]


def _flags(stats: CriterionStats) -> list[CriterionFlag]:
    flags = []
    rate = stats.yes_rate
    lopsided = rate is not None and (rate > SAME_ANSWER_SHARE or rate < 1 - SAME_ANSWER_SHARE)
    if lopsided and stats.answers >= MIN_ANSWERS:
        answer = "yes" if rate > SAME_ANSWER_SHARE else "no"
        share = rate if answer == "yes" else 1 - rate
        flags.append(
            CriterionFlag(
                "vague",
                f"Answers {answer} for {share:.0%} of {stats.answers} answers, so it tells "
                "good traces from bad ones almost never. Rewrite it to name the tool, the "
                "argument or the fact in the trace that would make it fail, or delete it.",
            )
        )
    if stats.flip_rate is not None and stats.flip_rate > FLIP_RATE_FLAG:
        flags.append(
            CriterionFlag(
                "unstable",
                f"Flips between passes on {stats.flip_rate:.0%} of traces: the judge cannot "
                "settle it from the trace. Say which span and value decide it.",
            )
        )
    overturn = stats.overturn_rate
    if overturn is not None and stats.reviewed >= MIN_REVIEWED and overturn > OVERTURN_RATE_FLAG:
        flags.append(
            CriterionFlag(
                "overturned",
                f"People overturn the judge on {overturn:.0%} of reviewed traces: the "
                "question means something else to them. Reword it with their corrections.",
            )
        )
    return flags


def rubric_criteria_stats(version: RubricVersion) -> list[CriterionStats]:
    """Statistics for each criterion of the version, in its order, each with its flags."""
    stats = {
        str(c.get("question", "")): CriterionStats(
            question=str(c.get("question", "")),
            evidence=str(c.get("evidence", "")),
            weight=float(c.get("weight", 1) or 1),
        )
        for c in version.criteria or []
        if isinstance(c, dict)
    }
    judge_answer: dict[int, dict[str, bool]] = defaultdict(dict)
    for (trace_id, _run_id), by_question in _pass_answers(version).items():
        for question, answers in by_question.items():
            row = stats.get(question)
            if row is None:
                continue
            row.answers += len(answers)
            row.yes += sum(answers)
            if len(answers) >= 2:
                row.pairs += 1
                row.flips += len(set(answers)) > 1
            if len(set(answers)) == 1:
                judge_answer[trace_id][question] = answers[0]
    for trace_id, by_question in _human_answers(version):
        for question, met in by_question.items():
            row = stats.get(question)
            judged = judge_answer.get(trace_id, {}).get(question)
            if row is None or judged is None:
                continue
            row.reviewed += 1
            row.overturned += judged != met
    for row in stats.values():
        row.flags = _flags(row)
    return list(stats.values())
