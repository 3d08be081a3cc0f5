"""Match an agent's tool calls against a reference trajectory.

Every matcher returns the aligned (reference index, actual index) pairs, so parameter accuracy
is scored on the same alignment that tool selection accuracy counted. Where one tool is called
several times, calls are paired with reference steps by how alike their arguments are (an
assignment, solved by scipy's `linear_sum_assignment`), never by position alone.
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
# State, with the reads the outcome depends on counted too (see scoring.matcher_for).
AUTO = "auto"
TRAJECTORY_MATCHERS = (AUTO, STATE, EXACT, IN_ORDER, ANY_ORDER, PRECISION_RECALL, SEMANTIC)

# (reference steps, actual steps, task) -> (score in {1.0, 0.5, 0.0}, or None when the judge's
# reply was unreadable, and a reason)
PathJudge = Callable[[list[dict], list[dict], str], tuple[float | None, str]]
# (reference index, actual index) -> how alike the two calls' arguments are, 0 to 1.
Similarity = Callable[[int, int], float]
# Ties between equally alike calls go to the nearer position, so equal calls keep their order.
POSITION_TIE_BREAK = 1e-6


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


def assignment_pairs(
    reference_indexes: Sequence[int], actual_indexes: Sequence[int], weight: Similarity
) -> list[tuple[int, int]]:
    """Pair calls of one tool so the summed weight is highest; as many pairs as the shorter
    side has. The one rule every matcher pairs repeated calls with."""
    if not reference_indexes or not actual_indexes:
        return []
    # Imported here: NumPy and SciPy's optimizer cost every process that loads the matchers
    # (each web worker does, through the golden dataset's import) some 90 MiB until calls are
    # paired.
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    weights = np.array(
        [
            [
                weight(r, a) - POSITION_TIE_BREAK * abs(row - col)
                for col, a in enumerate(actual_indexes)
            ]
            for row, r in enumerate(reference_indexes)
        ]
    )
    rows, cols = linear_sum_assignment(weights, maximize=True)
    return [(reference_indexes[r], actual_indexes[c]) for r, c in zip(rows, cols, strict=True)]


def _positional(_ref: int, _act: int) -> float:
    return 0.0


def _multiset_pairs(
    reference: Sequence[str], actual: Sequence[str], similarity: Similarity | None = None
) -> list[tuple[int, int]]:
    pairs: list[tuple[int, int]] = []
    for tool in dict.fromkeys(reference):
        refs = [i for i, t in enumerate(reference) if t == tool]
        acts = [j for j, t in enumerate(actual) if t == tool]
        pairs += assignment_pairs(refs, acts, similarity or _positional)
    return sorted(pairs)


def _lcs_pairs(
    reference: Sequence[str], actual: Sequence[str], similarity: Similarity | None = None
) -> list[tuple[int, int]]:
    """Longest common subsequence alignment: reference order kept, extra calls skipped; among
    equally long alignments, the one whose paired arguments are most alike."""
    alike = similarity or _positional
    n, m = len(reference), len(actual)
    table = [[(0, 0.0)] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            best = max(table[i + 1][j], table[i][j + 1])
            if reference[i] == actual[j]:
                count, score = table[i + 1][j + 1]
                best = max(best, (count + 1, score + alike(i, j)))
            table[i][j] = best
    pairs, i, j = [], 0, 0
    while i < n and j < m:
        if reference[i] == actual[j]:
            count, score = table[i + 1][j + 1]
            if table[i][j] == (count + 1, score + alike(i, j)):
                pairs.append((i, j))
                i, j = i + 1, j + 1
                continue
        if table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


def _required(reference: Sequence[str], optional: set[int] | None) -> int:
    return len(reference) - len(optional or ())


def _paired_required(pairs, optional: set[int] | None) -> int:
    return sum(1 for r, _a in pairs if r not in (optional or ()))


def _every_required_step(
    matcher: str, pairs, reference: Sequence[str], actual: Sequence[str], optional: set[int] | None
) -> MatchResult:
    """The path matches when every required reference step is paired with a call (how they
    pair is the matcher's own); extra calls lower only the precision."""
    found, required = _paired_required(pairs, optional), _required(reference, optional)
    return MatchResult(
        matcher,
        found == required,
        _ratio(found, required),
        pairs,
        _ratio(len(pairs), len(actual)),
        _ratio(found, required),
    )


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


def match_in_order(
    reference: Sequence[str],
    actual: Sequence[str],
    similarity: Similarity | None = None,
    optional: set[int] | None = None,
) -> MatchResult:
    """Every reference tool (but the optional steps), in reference order; extra calls in
    between are allowed."""
    pairs = _lcs_pairs(reference, actual, similarity)
    return _every_required_step(IN_ORDER, pairs, reference, actual, optional)


def match_any_order(
    reference: Sequence[str],
    actual: Sequence[str],
    similarity: Similarity | None = None,
    optional: set[int] | None = None,
) -> MatchResult:
    """Every reference tool (but the optional steps), in any order; extra calls are allowed."""
    pairs = _multiset_pairs(reference, actual, similarity)
    return _every_required_step(ANY_ORDER, pairs, reference, actual, optional)


def match_precision_recall(
    reference: Sequence[str],
    actual: Sequence[str],
    similarity: Similarity | None = None,
    optional: set[int] | None = None,
) -> MatchResult:
    """Tool calls as a multiset: precision over the agent's calls, recall over the reference's
    required steps.

    Tool selection accuracy is their F1; the path matches only when both are 1.
    """
    pairs = _multiset_pairs(reference, actual, similarity)
    precision = _ratio(len(pairs), len(actual))
    recall = _ratio(_paired_required(pairs, optional), _required(reference, optional))
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return MatchResult(
        PRECISION_RECALL, precision == 1.0 and recall == 1.0, f1, pairs, precision, recall
    )


def match_semantic(
    reference_steps: list[dict],
    actual_steps: list[dict],
    task: str,
    judge: PathJudge,
    similarity: Similarity | None = None,
) -> MatchResult:
    """A judge decides whether a different path was still reasonable for the task.

    Skips the call when the tools match exactly: the judge is only for paths that differ.
    Calls are aligned as in_order aligns them, for their parameters to be scored.
    """
    reference = [s["tool"] for s in reference_steps]
    actual = [s["tool"] for s in actual_steps]
    aligned = match_in_order(reference, actual, similarity)
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
    *,
    similarity: Similarity | None = None,
    read_indexes: tuple[list[int], list[int]] = ([], []),
    optional: set[int] | None = None,
) -> MatchResult:
    """The writes the agent made must equal the reference's writes, arguments included.

    `write_indexes` holds (reference write indexes, indexes of the agent's writes that took
    effect). Order counts only where `depends_on` says a reference write needs another
    reference write first. `read_indexes` holds (the reference reads that count, the agent's
    reads that succeeded): each counted read must be among the agent's, arguments included,
    while the agent's other reads stay free. `optional` reference steps may be left out.
    Calls of one tool pair by an assignment: matching arguments first, then the most alike.
    """
    alike = similarity or _positional

    def weight(ref: int, act: int) -> float:
        return 2.0 * arguments_match(ref, act) + alike(ref, act)

    optional = optional or set()
    wrong: list[str] = []
    pairs: list[tuple[int, int]] = []
    for (refs, acts), noun in ((write_indexes, "write"), (read_indexes, "call")):
        for tool in dict.fromkeys(reference_tools[r] for r in refs):
            same_refs = [r for r in refs if reference_tools[r] == tool]
            same_acts = [a for a in acts if actual_tools[a] == tool]
            found = assignment_pairs(same_refs, same_acts, weight)
            paired = {r for r, _a in found}
            for ref, act in found:
                pairs.append((ref, act))
                if not arguments_match(ref, act):
                    verb = "written" if noun == "write" else "called"
                    wrong.append(f"{tool} {verb} with other arguments")
            missing = [r for r in same_refs if r not in paired and r not in optional]
            wrong += [f"missing {noun} {tool}"] * len(missing)
    paired_at = dict(pairs)
    for ref, act in sorted(pairs):
        before = [d for d in depends_on.get(ref, []) if d in paired_at and paired_at[d] > act]
        if before and ref in write_indexes[0]:
            names = ", ".join(reference_tools[d] for d in before)
            wrong.append(
                f"{reference_tools[ref]} written out of order (it must come after {names})"
            )
    used = {a for _r, a in pairs}
    extra = [a for a in write_indexes[1] if a not in used]
    wrong += [f"unexpected write {actual_tools[a]}" for a in extra]
    counted_refs = [r for r in write_indexes[0] + read_indexes[0] if r not in optional]
    counted_pairs = [p for p in pairs if p[0] not in optional]
    # The agent's writes all count; of its reads, only those paired with a counted read.
    read_pairs = [p for p in pairs if p[1] not in set(write_indexes[1])]
    precision = _ratio(len(pairs), len(write_indexes[1]) + len(read_pairs))
    recall = _ratio(len(counted_pairs), len(counted_refs))
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return MatchResult(STATE, not wrong, f1, sorted(pairs), precision, recall, "; ".join(wrong))


def trajectory_match(
    matcher: str,
    reference_steps: list[dict],
    actual_steps: list[dict],
    *,
    task: str = "",
    path_judge: PathJudge | None = None,
    similarity: Similarity | None = None,
) -> MatchResult:
    """Run the named matcher on step dicts that carry at least a "tool" key; a reference step
    with `"optional": true` may be left out."""
    reference = [s["tool"] for s in reference_steps]
    actual = [s["tool"] for s in actual_steps]
    optional = {i for i, s in enumerate(reference_steps) if s.get("optional") is True}
    if matcher == EXACT:
        return match_exact(reference, actual)
    if matcher == IN_ORDER:
        return match_in_order(reference, actual, similarity, optional)
    if matcher == ANY_ORDER:
        return match_any_order(reference, actual, similarity, optional)
    if matcher == PRECISION_RECALL:
        return match_precision_recall(reference, actual, similarity, optional)
    if matcher == SEMANTIC:
        # The LLM path judge is judges' (judges/trajectory_llm.py); callers pass it in.
        if path_judge is None:
            raise ValueError("the semantic matcher needs a path judge")
        return match_semantic(reference_steps, actual_steps, task, path_judge, similarity)
    raise ValueError(f"unknown matcher {matcher!r}; use one of {', '.join(TRAJECTORY_MATCHERS)}")


def efficiency(reference_count: int, actual_count: int) -> float | None:
    """Reference calls over actual calls, capped at 1: extra calls lower it, shorter paths not."""
    if actual_count == 0:
        return None if reference_count == 0 else 0.0
    return min(1.0, reference_count / actual_count)
