"""Match an agent's tool calls against a reference trajectory.

Every matcher returns the aligned (reference index, actual index) pairs, so parameter accuracy
is scored on the same alignment that tool selection accuracy counted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

EXACT = "exact"
IN_ORDER = "in_order"
ANY_ORDER = "any_order"
PRECISION_RECALL = "precision_recall"
SEMANTIC = "semantic"
STATE = "state"
# State when the reference writes anything, else in_order: what a task changes decides it.
AUTO = "auto"
TRAJECTORY_MATCHERS = (AUTO, STATE, EXACT, IN_ORDER, ANY_ORDER, PRECISION_RECALL, SEMANTIC)

# (reference steps, actual steps, task) -> (score in {1.0, 0.5, 0.0}, or None when the judge's
# reply was unreadable, and a reason)
PathJudge = Callable[[list[dict], list[dict], str], tuple[float | None, str]]


@dataclass
class MatchResult:
    """Whether the path matched, and how well the tools were chosen."""

    matcher: str
    matched: bool
    tool_selection_accuracy: float
    pairs: list[tuple[int, int]] = field(default_factory=list)
    precision: float = 1.0
    recall: float = 1.0
    reason: str = ""
    # The judge's reply could not be read: a person decides, not a 0.
    unreadable: bool = False


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else 1.0


def _multiset_pairs(reference: Sequence[str], actual: Sequence[str]) -> list[tuple[int, int]]:
    used: set[int] = set()
    pairs = []
    for ref_index, tool in enumerate(reference):
        for act_index, candidate in enumerate(actual):
            if act_index not in used and candidate == tool:
                used.add(act_index)
                pairs.append((ref_index, act_index))
                break
    return pairs


def _lcs_pairs(reference: Sequence[str], actual: Sequence[str]) -> list[tuple[int, int]]:
    """Longest common subsequence alignment: reference order kept, extra calls skipped."""
    n, m = len(reference), len(actual)
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            if reference[i] == actual[j]:
                table[i][j] = table[i + 1][j + 1] + 1
            else:
                table[i][j] = max(table[i + 1][j], table[i][j + 1])
    pairs, i, j = [], 0, 0
    while i < n and j < m:
        if reference[i] == actual[j]:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


def match_exact(reference: Sequence[str], actual: Sequence[str]) -> MatchResult:
    """The same tools in the same order, nothing extra."""
    pairs = [(i, i) for i, (r, a) in enumerate(zip(reference, actual, strict=False)) if r == a]
    return MatchResult(
        EXACT,
        list(reference) == list(actual),
        _ratio(len(pairs), max(len(reference), len(actual))),
        pairs,
        _ratio(len(pairs), len(actual)),
        _ratio(len(pairs), len(reference)),
    )


def match_in_order(reference: Sequence[str], actual: Sequence[str]) -> MatchResult:
    """Every reference tool, in reference order; extra calls in between are allowed."""
    pairs = _lcs_pairs(reference, actual)
    return MatchResult(
        IN_ORDER,
        len(pairs) == len(reference),
        _ratio(len(pairs), len(reference)),
        pairs,
        _ratio(len(pairs), len(actual)),
        _ratio(len(pairs), len(reference)),
    )


def match_any_order(reference: Sequence[str], actual: Sequence[str]) -> MatchResult:
    """Every reference tool, in any order; extra calls are allowed."""
    pairs = _multiset_pairs(reference, actual)
    return MatchResult(
        ANY_ORDER,
        len(pairs) == len(reference),
        _ratio(len(pairs), len(reference)),
        pairs,
        _ratio(len(pairs), len(actual)),
        _ratio(len(pairs), len(reference)),
    )


def match_precision_recall(reference: Sequence[str], actual: Sequence[str]) -> MatchResult:
    """Tool calls as a multiset: precision over the agent's calls, recall over the reference.

    Tool selection accuracy is their F1; the path matches only when both are 1.
    """
    pairs = _multiset_pairs(reference, actual)
    precision = _ratio(len(pairs), len(actual))
    recall = _ratio(len(pairs), len(reference))
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return MatchResult(
        PRECISION_RECALL, precision == 1.0 and recall == 1.0, f1, pairs, precision, recall
    )


def match_semantic(
    reference_steps: list[dict], actual_steps: list[dict], task: str, judge: PathJudge
) -> MatchResult:
    """A judge decides whether a different path was still reasonable for the task.

    Skips the call when the tools match exactly: the judge is only for paths that differ.
    """
    reference = [s["tool"] for s in reference_steps]
    actual = [s["tool"] for s in actual_steps]
    aligned = match_in_order(reference, actual)
    if reference == actual:
        return MatchResult(SEMANTIC, True, 1.0, aligned.pairs, 1.0, 1.0, "identical path")
    score, reason = judge(reference_steps, actual_steps, task)
    if score is None:
        return MatchResult(
            SEMANTIC, False, aligned.tool_selection_accuracy, aligned.pairs, aligned.precision,
            aligned.recall, reason, unreadable=True,
        )  # fmt: skip
    return MatchResult(
        SEMANTIC,
        score >= 1.0,
        float(score),
        aligned.pairs,
        aligned.precision,
        aligned.recall,
        reason,
    )


def match_state(
    reference_tools: Sequence[str],
    actual_tools: Sequence[str],
    write_indexes: tuple[list[int], list[int]],
    arguments_match: Callable[[int, int], bool],
    depends_on: dict[int, list[int]],
) -> MatchResult:
    """The writes the agent made must equal the reference's writes, arguments included.

    `write_indexes` holds (reference write indexes, indexes of the agent's writes that took
    effect). Order counts only where `depends_on` says a reference write needs another
    reference write first. Reads are not compared: they change nothing.
    """
    ref_writes, act_writes = write_indexes
    used: set[int] = set()
    pairs: list[tuple[int, int]] = []
    paired: dict[int, int] = {}
    wrong: list[str] = []
    for ref in ref_writes:
        tool = reference_tools[ref]
        same_tool = [a for a in act_writes if a not in used and actual_tools[a] == tool]
        after = max((paired[d] for d in depends_on.get(ref, []) if d in paired), default=-1)
        right = [a for a in same_tool if arguments_match(ref, a)]
        exact = next((a for a in right if a > after), None)
        chosen = exact if exact is not None else (right or same_tool or [None])[0]
        if chosen is None:
            wrong.append(f"missing write {tool}")
            continue
        if exact is None and right:
            before = ", ".join(reference_tools[d] for d in depends_on.get(ref, []))
            wrong.append(f"{tool} written out of order (it must come after {before})")
        elif exact is None:
            wrong.append(f"{tool} written with other arguments")
        used.add(chosen)
        paired[ref] = chosen
        pairs.append((ref, chosen))
    extra = [a for a in act_writes if a not in used]
    wrong += [f"unexpected write {actual_tools[a]}" for a in extra]
    precision = _ratio(len(pairs), len(act_writes))
    recall = _ratio(len(pairs), len(ref_writes))
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return MatchResult(STATE, not wrong, f1, pairs, precision, recall, "; ".join(wrong))


def trajectory_match(
    matcher: str,
    reference_steps: list[dict],
    actual_steps: list[dict],
    *,
    task: str = "",
    path_judge: PathJudge | None = None,
) -> MatchResult:
    """Run the named matcher on step dicts that carry at least a "tool" key."""
    reference = [s["tool"] for s in reference_steps]
    actual = [s["tool"] for s in actual_steps]
    if matcher == EXACT:
        return match_exact(reference, actual)
    if matcher == IN_ORDER:
        return match_in_order(reference, actual)
    if matcher == ANY_ORDER:
        return match_any_order(reference, actual)
    if matcher == PRECISION_RECALL:
        return match_precision_recall(reference, actual)
    if matcher == SEMANTIC:
        if path_judge is None:
            from judges.trajectory.llm import path_judge_llm

            path_judge = path_judge_llm
        return match_semantic(reference_steps, actual_steps, task, path_judge)
    raise ValueError(f"unknown matcher {matcher!r}; use one of {', '.join(TRAJECTORY_MATCHERS)}")


def efficiency(reference_count: int, actual_count: int) -> float | None:
    """Reference calls over actual calls, capped at 1: extra calls lower it, shorter paths not."""
    if actual_count == 0:
        return None if reference_count == 0 else 0.0
    return min(1.0, reference_count / actual_count)
