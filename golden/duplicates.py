"""Near-duplicate detection: the same kind of task, asked in nearly the same words."""

import difflib
import re
from dataclasses import dataclass

from golden.models import GoldenExample

NEAR_DUPLICATE_RATIO = 0.85


def task_text_normalize(text: str) -> str:
    """Lower case, punctuation dropped, whitespace collapsed: wording noise does not count."""
    return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())


@dataclass(frozen=True)
class NearDuplicate:
    example: GoldenExample
    ratio: float


def example_near_duplicates(
    *, task: str, task_type: str, exclude_pk: int | None = None, limit: int = 5
) -> list[NearDuplicate]:
    """Examples of the same task type whose normalized task text is at least 85% similar."""
    target = task_text_normalize(task)
    candidates = GoldenExample.objects.filter(task_type=task_type).only("pk", "task", "held_out")
    if exclude_pk:
        candidates = candidates.exclude(pk=exclude_pk)
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(target)
    found = []
    for example in candidates.iterator(chunk_size=500):
        matcher.set_seq1(task_text_normalize(example.task))
        # quick_ratio is an upper bound, so it prunes without missing a match.
        if matcher.real_quick_ratio() < NEAR_DUPLICATE_RATIO:
            continue
        if matcher.quick_ratio() < NEAR_DUPLICATE_RATIO:
            continue
        ratio = matcher.ratio()
        if ratio >= NEAR_DUPLICATE_RATIO:
            found.append(NearDuplicate(example=example, ratio=round(ratio, 3)))
    found.sort(key=lambda match: -match.ratio)
    return found[:limit]
