"""A judge's cited spans resolved to span ids when its reply is stored.

Judges cite spans the way the prompt shows them: by name (`search_flights`), by name and the
call's 1-based number among spans of that name (`search_flights[2]`, `search_flights #2`),
or, rarely, by span id. Each citation is stored as {"cited": the text, "span_id": id or ""};
one the trace cannot answer keeps its text and an empty id, so a person still sees it.
"""

import re
from collections import defaultdict

INDEXED = re.compile(r"^(?P<name>.+?)\s*(?:\[(?P<bracket>\d+)\]|#(?P<hash>\d+))$")
# An identifier with a call number, even when no span has that name.
ANY_INDEXED = re.compile(r"(?<![\w.-])[A-Za-z_][\w.-]*(?:\[\d+\]| #\d+)")


def _mentions(explanation: str, names: list[str], span_ids: list[str]) -> list[str]:
    """Span references in the text, in the order they first appear."""
    found: list[tuple[int, str]] = []
    # Only what the text contains can match: the pattern is then the few names cited, which
    # recur across traces and come compiled from re's cache, not every span id of the trace.
    present = {a for a in (*names, *span_ids) if a in explanation}
    alternatives = sorted(present, key=len, reverse=True)
    if alternatives:
        known = re.compile(
            r"(?<![\w.-])(?:"
            + "|".join(re.escape(a) for a in alternatives)
            + r")(?:\[\d+\]| #\d+)?(?![\w-])"
        )
        found += [(m.start(), m.group(0)) for m in known.finditer(explanation)]
    found += [(m.start(), m.group(0)) for m in ANY_INDEXED.finditer(explanation)]
    return [text for _, text in sorted(found)]


def citations_resolve(
    explanation: str, references: list[str], spans: list[tuple[str, str]]
) -> list[dict]:
    """Resolve what the reply cites against the trace's (span_id, name) pairs in order.

    `references` are citations the reply names outright (a criterion's settling span); the
    explanation is searched for the rest. A bare name shared by several spans cites them all.
    """
    by_name: dict[str, list[str]] = defaultdict(list)
    for span_id, name in spans:
        by_name[name].append(span_id)
    ids = {span_id for span_id, _ in spans}
    cited = [str(r).strip() for r in references if str(r).strip()]
    cited += _mentions(explanation or "", list(by_name), sorted(ids))
    resolved: list[dict] = []
    for text in dict.fromkeys(cited):
        for span_id in _span_ids_for(text, by_name, ids) or [""]:
            resolved.append({"cited": text, "span_id": span_id})
    return resolved


def _span_ids_for(text: str, by_name: dict[str, list[str]], ids: set[str]) -> list[str]:
    if text in by_name:
        return by_name[text]
    match = INDEXED.match(text)
    if match and match.group("name") in by_name:
        number = int(match.group("bracket") or match.group("hash"))
        calls = by_name[match.group("name")]
        return [calls[number - 1]] if 1 <= number <= len(calls) else []
    return [text] if text in ids else []
