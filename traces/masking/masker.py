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
from functools import lru_cache

from traces.masking.detectors import DETECTORS, Span

MARK = re.compile(r"<([a-z0-9_-]{1,40})(?::([0-9a-f]{8}))?>")
DROPPED_ATTRIBUTE = "evalsite.masking.dropped"
MARKS_REMEMBERED = 4096


def is_identifier_key(key: str) -> bool:
    """`id`, `*_id`, `*.id` (any case), the last part of a dotted path counting."""
    tail = key[-3:].lower()
    return tail in ("_id", ".id") or key.lower() == "id"


@dataclass(frozen=True)
class TextRule:
    label: str
    pseudonym: bool
    find: Callable[[str], Iterator[Span]]
    # RE2 expressions that match wherever `find` could find something; empty: always run.
    gates: tuple[str, ...] = ()
    needs: str = ""  # a text without this cannot hold a value (`@` for an address)
    canonical: Callable[[str], str] = str  # the form its pseudonym is made from


@dataclass(frozen=True)
class KeyRule:
    glob: str  # matched, lower-cased, against the dotted path and against the bare key
    label: str
    action: str  # "mark", "pseudonym" or "drop"


class Gate:
    """One RE2 pass over a span's texts that names the rules worth running on them: most
    spans hold nothing to mask and cost one scan, not one scan per rule and string."""

    def __init__(self, rules: tuple[TextRule, ...]):
        import re2  # loaded by processes that mask, like the detectors' libraries

        self.rules = rules
        self.always = frozenset(i for i, rule in enumerate(rules) if not rule.gates)
        self.owner: list[int] = []
        options = re2.Options()
        options.max_mem = 64 << 20
        self.set = re2.Set.SearchSet(options)
        for index, rule in enumerate(rules):
            for expression in rule.gates:
                try:
                    self.set.Add(expression)
                except re2.error:
                    self.always |= {index}  # RE2 cannot read it: the rule runs every time
                    continue
                self.owner.append(index)
        self.set.Compile()

    def rules_for(self, texts: list[str] | bytes) -> frozenset[int]:
        if not self.owner:
            return self.always
        matched = self.set.Match(texts if isinstance(texts, bytes) else "\x00".join(texts))
        if not matched:
            return self.always
        return self.always | {self.owner[i] for i in matched}


@lru_cache(maxsize=64)
def gate_for(rules: tuple[TextRule, ...]) -> Gate:
    """Compiled once per set of rules in a process, not each time a project's rules are read."""
    return Gate(rules)


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
        self._gate: Gate | None = None
        # Narrowed to one rule that needs a character (an address's @), a masker skips the
        # strings without it before any call.
        self._only_needs = text_rules[0].needs if len(text_rules) == 1 else ""
        self._narrowed: dict[frozenset[int], Masker] = {}
        # One customer's address recurs in most spans of a trace: its mark is worked out once.
        self._marks: dict[tuple[str, str], str] = {}

    def for_texts(self, texts: list[str] | bytes) -> Masker | None:
        """This masker with only the rules that may find something in the texts; None when no
        rule may (and no attribute-name rule needs the keys)."""
        if self._gate is None:
            self._gate = gate_for(self.text_rules)
        wanted = self._gate.rules_for(texts)
        if not wanted and not self.key_rules:
            return None
        if len(wanted) == len(self.text_rules):
            return self
        narrowed = self._narrowed.get(wanted)
        if narrowed is None:
            rules = [rule for i, rule in enumerate(self.text_rules) if i in wanted]
            narrowed = Masker(self.key.decode(), rules, list(self.key_rules))
            self._narrowed[wanted] = narrowed
        return narrowed

    def mark(self, label: str, value: str, pseudonym: bool, canonical=str) -> str:
        if not pseudonym:
            return f"<{label}>"
        known = self._marks.get((label, value))
        if known is None:
            plain = canonical(value)
            digest = hmac.new(self.key, f"{label}\0{plain}".encode(), hashlib.sha256)
            known = f"<{label}:{digest.hexdigest()[:8]}>"
            if len(self._marks) >= MARKS_REMEMBERED:
                self._marks.clear()
            self._marks[(label, value)] = known
        return known

    def text(self, text: str, *, identifier: bool = False, key: str = "") -> str:
        """The text with every value a rule finds replaced by its mark; the same object when
        nothing was found. `key` is the name it is stored under (identifiers get pseudonyms)."""
        if not text or not self.text_rules or (text[0] == "<" and MARK.fullmatch(text)):
            return text
        found: list[tuple[int, int, TextRule]] = []
        for rule in self.text_rules:
            if rule.needs and rule.needs not in text:
                continue
            found.extend((start, end, rule) for start, end in rule.find(text))
        if not found:
            return text
        identifier = identifier or is_identifier_key(key)
        found.sort(key=lambda item: (item[0], -item[1]))
        pieces, at = [], 0
        for start, end, rule in found:
            if start < at:
                continue  # inside a value another rule already took
            value = text[start:end]
            if MARK.fullmatch(value):
                continue
            pseudonym = rule.pseudonym or identifier
            pieces += [text[at:start], self.mark(rule.label, value, pseudonym, rule.canonical)]
            at = end
        pieces.append(text[at:])
        return "".join(pieces)

    def value(self, value, path: str = ""):
        """A JSON-like value with its strings masked and its keys' rules applied; unchanged
        parts are the same objects, so a span with one address rebuilds one path to it."""
        kind = type(value)
        if kind is str or isinstance(value, str):
            return self.text(value, key=path)
        if kind is dict or isinstance(value, dict):
            return self.mapping(value, path)[0]
        if kind is list or isinstance(value, list):
            masked = [self.value(item, path) for item in value]
            return value if all(a is b for a, b in zip(masked, value, strict=True)) else masked
        return value

    def mapping(self, mapping: dict, path: str = "") -> tuple[dict, list[str]]:
        """The mapping masked, and the dotted names of the keys that rules dropped."""
        if not self.key_rules:
            changed = None
            needs = self._only_needs
            for key, item in mapping.items():
                if type(item) is str:  # most values: no call through value()
                    if needs and needs not in item:
                        continue
                    masked = self.text(item, key=key if type(key) is str else str(key))
                else:
                    masked = self.value(item, key if type(key) is str else str(key))
                if masked is not item:
                    changed = changed if changed is not None else dict(mapping)
                    changed[key] = masked
            return (mapping if changed is None else changed), []
        masked_all, dropped = {}, []
        for key, item in mapping.items():
            name = f"{path}.{key}" if path else str(key)
            rule = self._key_rule(str(key), name)
            if rule is None:
                masked_all[key] = self.value(item, name)
            elif rule.action == "drop":
                dropped.append(name)
            else:
                whole = item if isinstance(item, str) else repr(item)
                masked_all[key] = self.mark(rule.label, whole, rule.action == "pseudonym")
        return masked_all, dropped

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
    return TextRule(
        label, pseudonym, detector.find, detector.gates(), detector.needs, detector.canonical
    )


def texts_of(value, into: list[str]) -> list[str]:
    """Every string inside a JSON-like value (not the keys), appended to `into` in no order:
    a loop, not a call per value, as it runs on every span of a masking project."""
    pending = [value]
    while pending:
        item = pending.pop()
        kind = type(item)
        if kind is str:
            into.append(item)
        elif kind is dict:
            pending.extend(item.values())
        elif kind is list:
            pending.extend(item)
        elif isinstance(item, str):
            into.append(item)
        elif isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, list | tuple):
            pending.extend(item)
    return into


def every_detector(key: str) -> Masker:
    """All built-in detectors with pseudonyms: what a golden example is checked against."""
    return Masker(key, [detector_rule(name, name, True) for name in DETECTORS], [])
