"""No golden example holds a value a detector finds: every write of example content is masked
with all built-in detectors (pseudonyms) and the source trace's project rules.

A promoted example's marks are the ones its project gives at ingest (the project's key), so a
reference trajectory still compares equal with an agent's masked trace in CI. An example
without a source trace is keyed by the site's secret. The curator sees, on the draft, which
values will be masked before saving. What an eval trial is compared with an example (its tool
calls' arguments and results, the arguments its tool world is sent) is masked the same way
first, so a mark in a reference equals the value the agent used.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.conf import settings

from golden.example_schema import CONTENT_FIELDS
from golden.models import GoldenExample
from traces.masking.cache import maskers
from traces.masking.masker import MARK, Masker, every_detector
from traces.masking.rules import masker_build
from traces.models import Project

# Content that names things rather than says them: never rewritten.
UNMASKED_FIELDS = frozenset({"key", "outcome_rubric", "task_type", "adversarial_kind", "held_out"})


@dataclass(frozen=True)
class Masked:
    field: str  # where, as a path: task, reference_trajectory[2].inputs.email
    label: str  # what was found: email, card, ...


def site_masking_key() -> str:
    return hashlib.sha256(f"evalsite-golden-masking:{settings.SECRET_KEY}".encode()).hexdigest()


def example_masker(project_id: int | None) -> Masker:
    """The built-in detectors, with the project's own rules first where there is a project;
    remembered with the projects' ingest maskers (and forgotten with them on a rule change)."""
    return maskers.get(("golden", project_id), lambda: _example_masker_build(project_id))


def _example_masker_build(project_id: int | None) -> Masker:
    if project_id is None:
        return every_detector(site_masking_key())
    key = Project.objects.values_list("masking_key", flat=True).get(pk=project_id)
    builtins = every_detector(key)
    own = masker_build(project_id)
    if own is None:
        return builtins
    return Masker(key, [*own.text_rules, *builtins.text_rules], list(own.key_rules))


def entry_masker(entry) -> Masker:
    """The masker an eval trial's example was written with (a dataset version entry's): asked
    for every trial scored and every tool call served, so its project is read once a while."""

    def project_id() -> int | None:
        examples = GoldenExample.objects.filter(pk=entry.example_id)
        return examples.values_list("source_trace__project_id", flat=True).first()

    return example_masker(maskers.get(("golden entry", entry.pk), project_id))


def example_data_masked(data: dict, project_id: int | None) -> tuple[dict, list[Masked]]:
    """The example content masked, and what was masked where."""
    masker = example_masker(project_id)
    masked, found = dict(data), []
    for name in CONTENT_FIELDS:
        if name in UNMASKED_FIELDS or name not in data:
            continue
        value = data[name]
        masked[name] = masker.value(value, name)
        if masked[name] != value:
            found.extend(_marks_added(value, masked[name], name))
    return masked, found


def _marks_added(before, after, path: str) -> list[Masked]:
    if isinstance(after, str):
        had = {m.group() for m in MARK.finditer(before)} if isinstance(before, str) else set()
        return [Masked(path, m.group(1)) for m in MARK.finditer(after) if m.group() not in had]
    if isinstance(after, dict):
        before = before if isinstance(before, dict) else {}
        found = []
        for key, value in after.items():
            found += _marks_added(before.get(key), value, f"{path}.{key}")
        dropped = set(before) - set(after)
        found += [Masked(f"{path}.{key}", "dropped") for key in sorted(dropped, key=str)]
        return found
    if isinstance(after, list):
        before = before if isinstance(before, list) else []
        return [
            found
            for index, value in enumerate(after)
            for found in _marks_added(
                before[index] if index < len(before) else None, value, f"{path}[{index}]"
            )
        ]
    return []
