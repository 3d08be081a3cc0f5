"""A project's masking rules compiled into one object that rewrites values before storage.

A found value becomes a mark: `<email>` (fixed) or `<email:7f3a91c2>` (a pseudonym keyed by
the project's secret, so the same address gets the same mark in every trace of the project and
an id read from one tool and passed to another still matches). A value under a key that names
an identifier (`id`, `*_id`, `*.id`) always gets a pseudonym: a fixed mark would merge
distinct sessions or users into one. Attribute-name rules mask or drop a whole value by its
key; a dropped key is listed on the span under DROPPED_ATTRIBUTE, never lost unannounced.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fnmatch import fnmatchcase

from traces.masking.detectors import DETECTORS, Span

MARK = re.compile(r"<([a-z0-9_-]{1,40})(?::([0-9a-f]{8}))?>")
DROPPED_ATTRIBUTE = "evalsite.masking.dropped"
_DIGIT = re.compile(r"\d")
_IDENTIFIER_KEY = re.compile(r"(?:^|[._])id$", re.I)


@dataclass(frozen=True)
class TextRule:
    label: str
    pseudonym: bool
    find: Callable[[str], Iterator[Span]]
    needs_digit: bool = False


@dataclass(frozen=True)
class KeyRule:
    glob: str  # matched, lower-cased, against the dotted path and against the bare key
    label: str
    action: str  # "mark", "pseudonym" or "drop"


def pattern_finder(expression: str) -> Callable[[str], Iterator[Span]]:
    compiled = re.compile(expression)

    def find(text: str) -> Iterator[Span]:
        for match in compiled.finditer(text):
            if match.end() > match.start():
                yield match.span()

    return find


class Masker:
    """Rewrites text, JSON-like values and attribute maps; holds no database state."""

    def __init__(self, key: str, text_rules: list[TextRule], key_rules: list[KeyRule]):
        self.key = key.encode()
        self.text_rules = tuple(text_rules)
        self.key_rules = tuple(key_rules)
        self.any_needs_digit = any(rule.needs_digit for rule in text_rules)

    def mark(self, label: str, value: str, pseudonym: bool) -> str:
        if not pseudonym:
            return f"<{label}>"
        digest = hmac.new(self.key, f"{label}\0{value}".encode(), hashlib.sha256)
        return f"<{label}:{digest.hexdigest()[:8]}>"

    def text(self, text: str, *, identifier: bool = False) -> str:
        """The text with every value a rule finds replaced by its mark."""
        if not text or MARK.fullmatch(text):
            return text
        has_digit = self.any_needs_digit and _DIGIT.search(text) is not None
        found: list[tuple[int, int, TextRule]] = []
        for rule in self.text_rules:
            if rule.needs_digit and not has_digit:
                continue
            found.extend((start, end, rule) for start, end in rule.find(text))
        if not found:
            return text
        found.sort(key=lambda item: (item[0], -item[1]))
        pieces, at = [], 0
        for start, end, rule in found:
            if start < at:
                continue  # inside a value another rule already took
            value = text[start:end]
            if MARK.fullmatch(value):
                continue
            pieces += [text[at:start], self.mark(rule.label, value, rule.pseudonym or identifier)]
            at = end
        pieces.append(text[at:])
        return "".join(pieces)

    def value(self, value, path: str = ""):
        """A JSON-like value with its strings masked and its keys' rules applied."""
        if isinstance(value, str):
            return self.text(value, identifier=bool(_IDENTIFIER_KEY.search(path)))
        if isinstance(value, dict):
            return self.mapping(value, path)[0]
        if isinstance(value, list):
            return [self.value(item, path) for item in value]
        return value

    def mapping(self, mapping: dict, path: str = "") -> tuple[dict, list[str]]:
        """The mapping masked, and the dotted names of the keys that rules dropped."""
        masked, dropped = {}, []
        for key, item in mapping.items():
            name = f"{path}.{key}" if path else str(key)
            rule = self._key_rule(str(key), name)
            if rule is None:
                masked[key] = self.value(item, name)
            elif rule.action == "drop":
                dropped.append(name)
            else:
                whole = item if isinstance(item, str) else repr(item)
                masked[key] = self.mark(rule.label, whole, rule.action == "pseudonym")
        return masked, dropped

    def attributes(self, attributes: dict) -> dict:
        masked, dropped = self.mapping(attributes)
        if dropped:
            masked[DROPPED_ATTRIBUTE] = sorted(
                set(dropped) | set(masked.get(DROPPED_ATTRIBUTE, ()))
            )
        return masked

    def _key_rule(self, key: str, path: str) -> KeyRule | None:
        if not self.key_rules:
            return None
        key, path = key.lower(), path.lower()
        for rule in self.key_rules:
            if fnmatchcase(path, rule.glob) or fnmatchcase(key, rule.glob):
                return rule
        return None


def detector_rule(name: str, label: str, pseudonym: bool) -> TextRule:
    detector = DETECTORS[name]
    return TextRule(label, pseudonym, detector.find, detector.needs_digit)


def every_detector(key: str) -> Masker:
    """All built-in detectors with pseudonyms: what a golden example is checked against."""
    return Masker(key, [detector_rule(name, name, True) for name in DETECTORS], [])
