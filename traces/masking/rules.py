"""A project's masking rules: checked, changed with an audit row, compiled and remembered.

Ingest asks `masker_for(project_id)` on every request: None (nothing to do, no cost) when the
project has no rule on. A change applies at once in this process and within
traces.masking.cache's interval in the others; stored traces are masked again by `mask_stored`.
"""

from __future__ import annotations

import re

from django.db import DatabaseError, transaction
from django.forms.models import model_to_dict

from core.errors import ApplicationError
from traces.masking.cache import maskers
from traces.masking.detectors import DETECTORS
from traces.masking.masker import KeyRule, Masker, TextRule, detector_rule, pattern_finder
from traces.models import MaskingRule, MaskingRuleChange, Project

AUDITED_FIELDS = ("kind", "detector", "pattern", "label", "action", "enabled")


def masker_for(project_id: int) -> Masker | None:
    return maskers.get(project_id, lambda: masker_build(project_id))


def masking_preload(projects: int = 50) -> None:
    """Load the detectors' libraries and compile the gates in a web worker that will mask,
    before its first request pays half a second of CPU for them (gunicorn.conf.py)."""
    try:
        enabled = MaskingRule.objects.filter(enabled=True).values_list("project_id", flat=True)
        project_ids = list(enabled.distinct()[:projects])
    except DatabaseError:
        return  # the database is not up yet: the first request loads them instead
    for project_id in project_ids:
        masker = masker_for(project_id)
        if masker is not None:
            masker.for_texts([""])


def masker_build(project_id: int) -> Masker | None:
    rules = list(MaskingRule.objects.filter(project_id=project_id, enabled=True).order_by("id"))
    if not rules:
        return None
    text_rules: list[TextRule] = []
    key_rules: list[KeyRule] = []
    for rule in rules:
        pseudonym = rule.action == MaskingRule.Action.PSEUDONYM
        if rule.kind == MaskingRule.Kind.DETECTOR:
            text_rules.append(detector_rule(rule.detector, rule.label, pseudonym))
        elif rule.kind == MaskingRule.Kind.PATTERN:
            finder = pattern_finder(rule.pattern)
            text_rules.append(TextRule(rule.label, pseudonym, finder, _gates_of(rule.pattern)))
        else:
            key_rules.append(KeyRule(rule.pattern.lower(), rule.label, rule.action))
    key = Project.objects.values_list("masking_key", flat=True).get(pk=project_id)
    return Masker(key, text_rules, key_rules)


def _gates_of(pattern: str) -> tuple[str, ...]:
    """A curator's pattern as its own gate, unless it uses a class RE2 reads as ASCII only
    (\\d, \\w, \\s, \\b and their negations), where RE2 could miss what Python finds: such a
    rule runs on every text."""
    return () if re.search(r"\\[dwsbDWSB]", pattern) else (pattern,)


def rule_check(data: dict) -> dict:
    """The rule's fields, normalised; an ApplicationError naming the field when one is wrong."""
    kind = data.get("kind")
    if kind not in MaskingRule.Kind.values:
        raise ApplicationError(
            f"kind must be one of {', '.join(MaskingRule.Kind.values)}.", field="kind"
        )
    action = data.get("action") or MaskingRule.Action.PSEUDONYM
    if action not in MaskingRule.Action.values:
        raise ApplicationError(
            f"action must be one of {', '.join(MaskingRule.Action.values)}.", field="action"
        )
    if action == MaskingRule.Action.DROP and kind != MaskingRule.Kind.ATTRIBUTE:
        raise ApplicationError("Only attribute rules can drop a value.", field="action")
    detector = str(data.get("detector") or "")
    pattern = str(data.get("pattern") or "").strip()
    if kind == MaskingRule.Kind.DETECTOR:
        if detector not in DETECTORS:
            raise ApplicationError(
                f"detector must be one of {', '.join(DETECTORS)}.", field="detector"
            )
        pattern = ""
    else:
        detector = ""
        _pattern_check(kind, pattern)
    label = str(data.get("label") or detector or "masked").strip().lower()
    if not re.fullmatch(r"[a-z0-9_-]{1,40}", label):
        raise ApplicationError(
            "label must be 1-40 lower-case letters, digits, - or _.", field="label"
        )
    enabled = data.get("enabled", True)
    if not isinstance(enabled, bool):
        raise ApplicationError("enabled must be true or false.", field="enabled")
    return {
        "kind": kind,
        "detector": detector,
        "pattern": pattern,
        "label": label,
        "action": action,
        "enabled": enabled,
    }


def _pattern_check(kind: str, pattern: str) -> None:
    if not pattern:
        raise ApplicationError("pattern is required for this kind of rule.", field="pattern")
    if len(pattern) > 500:
        raise ApplicationError("pattern is longer than 500 characters.", field="pattern")
    if kind == MaskingRule.Kind.PATTERN:
        try:
            compiled = re.compile(pattern)
        except re.error as exc:
            message = f"pattern is not a regular expression: {exc}."
            raise ApplicationError(message, field="pattern") from exc
        if compiled.fullmatch(""):
            raise ApplicationError("pattern must not match empty text.", field="pattern")


def _audit(project, rule_id, user, action, before, after) -> None:
    MaskingRuleChange.objects.create(
        project=project,
        rule_id=rule_id,
        user=user if user is not None and user.is_authenticated else None,
        username=getattr(user, "username", "") or "",
        action=action,
        before=before,
        after=after,
    )


def _snapshot(rule: MaskingRule) -> dict:
    return model_to_dict(rule, fields=AUDITED_FIELDS)


@transaction.atomic
def rule_create(project: Project, data: dict, user) -> MaskingRule:
    rule = MaskingRule.objects.create(project=project, **rule_check(data))
    _audit(project, rule.pk, user, MaskingRuleChange.Action.CREATED, None, _snapshot(rule))
    return rule


@transaction.atomic
def rule_update(rule: MaskingRule, data: dict, user) -> MaskingRule:
    before = _snapshot(rule)
    fields = rule_check({**before, **data})
    for name, value in fields.items():
        setattr(rule, name, value)
    rule.save()
    after = _snapshot(rule)
    if after != before:
        _audit(rule.project, rule.pk, user, MaskingRuleChange.Action.CHANGED, before, after)
    return rule


@transaction.atomic
def rule_delete(rule: MaskingRule, user) -> None:
    _audit(rule.project, rule.pk, user, MaskingRuleChange.Action.DELETED, _snapshot(rule), None)
    rule.delete()


@transaction.atomic
def builtin_rules_enable(project: Project, user) -> list[MaskingRule]:
    """One pseudonym rule per built-in detector the project does not have yet."""
    have = set(
        project.masking_rules.filter(kind=MaskingRule.Kind.DETECTOR).values_list(
            "detector", flat=True
        )
    )
    return [
        rule_create(project, {"kind": MaskingRule.Kind.DETECTOR, "detector": name}, user)
        for name in DETECTORS
        if name not in have
    ]
