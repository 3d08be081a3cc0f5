"""Parameter accuracy: deterministic equivalence first, an LLM rubric only when that cannot decide.

Deterministic rules: the same moment as ISO date or unix time, numbers written as strings or
of another type (5 and 5.0), case and whitespace (unless the tool definition in the context
marks them case sensitive), and `<from_context>` and `<from_step_N_output>` resolved against the
context and earlier outputs.

A reference value may also be a spec of what is accepted: `{"optional": true}` (may be left
out; any value when given), `{"any_of": [a, b]}` (either value, each a literal or a
placeholder), or both (left out, or one of these).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from evalsite_checks.parameter_specs import parameter_spec
from evalsite_checks.steps import leaf_values

FROM_CONTEXT = "<from_context>"
FROM_STEP = re.compile(r"^<from_step_(\d+)_output>$")
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
ISO_DATETIME = re.compile(
    r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$"
)
# Unix times between 2001 and 2100, in seconds or milliseconds.
UNIX_SECONDS = (1e9, 4.2e9)

# (parameter name, expected, actual, context text) -> 1.0, 0.5 or 0.0; None when the judge's
# reply could not be read (the trial then goes to a person).
ParameterJudge = Callable[[str, Any, Any, str], float | None]
UNREADABLE = "unreadable"
UNDECIDED = "undecided"
OPTIONAL = "optional"


@dataclass(frozen=True)
class ParamScore:
    """The score of one parameter and which rule decided it."""

    name: str
    score: float
    method: str  # "deterministic", "placeholder", "llm", "missing", "undecided", "unreadable"
    expected: Any = None
    actual: Any = None


def _as_number(value: Any) -> Decimal | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return Decimal(str(value))
    if isinstance(value, str):
        text = value.strip().replace(",", "")
        if re.fullmatch(r"[-+]?\d+(\.\d+)?", text):
            try:
                return Decimal(text)
            except InvalidOperation:
                return None
    return None


def _as_moment(value: Any) -> tuple[datetime, bool] | None:
    """(instant in UTC, is date only) for ISO dates, ISO datetimes and unix times."""
    if isinstance(value, bool):
        return None
    as_number = _as_number(value)
    if as_number is not None:
        number = float(as_number)
        if UNIX_SECONDS[0] * 1000 <= number < UNIX_SECONDS[1] * 1000:
            number /= 1000
        if UNIX_SECONDS[0] <= number < UNIX_SECONDS[1]:
            return datetime.fromtimestamp(number, tz=UTC), False
        return None
    if not isinstance(value, str):
        return None
    text = value.strip()
    if ISO_DATE.match(text):
        day = date.fromisoformat(text)
        return datetime(day.year, day.month, day.day, tzinfo=UTC), True
    if ISO_DATETIME.match(text):
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
        parsed = parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
        return parsed.astimezone(UTC), False
    return None


def _normal_text(value: Any, case_sensitive: bool) -> str:
    text = " ".join(str(value).split())
    return text if case_sensitive else text.casefold()


def _is_free_text(value: Any) -> bool:
    return isinstance(value, str) and len(value.split()) >= 3


# A matcher's answer when the pair is not its kind: the next matcher in the table decides.
NOT_MINE = object()
TRUTHY = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}


def _all_agree(results: list[bool | None]) -> bool | None:
    return False if False in results else (None if None in results else True)


def _match_missing(expected: Any, actual: Any, case_sensitive: bool):
    if expected is None or actual is None:
        return expected is None and actual is None
    return NOT_MINE


def _match_mappings(expected: Any, actual: Any, case_sensitive: bool):
    if not (isinstance(expected, dict) or isinstance(actual, dict)):
        return NOT_MINE
    if not (isinstance(expected, dict) and isinstance(actual, dict)):
        return False
    if set(expected) != set(actual):
        return False
    return _all_agree(
        [values_equivalent(expected[k], actual[k], case_sensitive=case_sensitive) for k in expected]
    )


def _match_sequences(expected: Any, actual: Any, case_sensitive: bool):
    if not (isinstance(expected, (list, tuple)) or isinstance(actual, (list, tuple))):
        return NOT_MINE
    if not (isinstance(expected, (list, tuple)) and isinstance(actual, (list, tuple))):
        return False
    if len(expected) != len(actual):
        return False
    in_order = [
        values_equivalent(e, a, case_sensitive=case_sensitive)
        for e, a in zip(expected, actual, strict=True)
    ]
    if all(r is True for r in in_order):
        return True
    # The same items in another order still name the same things.
    remaining = list(actual)
    for item in expected:
        match = next(
            (a for a in remaining if values_equivalent(item, a, case_sensitive=case_sensitive)),
            None,
        )
        if match is None:
            return None if None in in_order else False
        remaining.remove(match)
    return True


def _match_booleans(expected: Any, actual: Any, case_sensitive: bool):
    if not (isinstance(expected, bool) or isinstance(actual, bool)):
        return NOT_MINE
    as_bool = [
        v if isinstance(v, bool) else TRUTHY.get(str(v).strip().lower()) for v in (expected, actual)
    ]
    return None not in as_bool and as_bool[0] == as_bool[1]


def _match_moments(expected: Any, actual: Any, case_sensitive: bool):
    # Two plain numbers are amounts, compared as numbers, even in the unix-time range.
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return NOT_MINE
    moments = _as_moment(expected), _as_moment(actual)
    if not all(moments):
        return NOT_MINE
    (left, left_day), (right, right_day) = moments
    if left_day or right_day:
        return left.date() == right.date()
    return left == right


def _match_numbers(expected: Any, actual: Any, case_sensitive: bool):
    numbers = _as_number(expected), _as_number(actual)
    if numbers[0] is None or numbers[1] is None:
        return NOT_MINE
    return numbers[0] == numbers[1]


def _match_text(expected: Any, actual: Any, case_sensitive: bool):
    if _normal_text(expected, case_sensitive) == _normal_text(actual, case_sensitive):
        return True
    if _is_free_text(expected) and _is_free_text(actual):
        # Wording is a judge's question; a different house number, amount or date is not.
        return False if sorted(_numbers_in(expected)) != sorted(_numbers_in(actual)) else None
    return False


# Asked in this order; the first rule whose kind the pair is decides.
VALUE_RULES = (
    _match_missing,
    _match_mappings,
    _match_sequences,
    _match_booleans,
    _match_moments,
    _match_numbers,
    _match_text,
)


def values_equivalent(expected: Any, actual: Any, *, case_sensitive: bool = False) -> bool | None:
    """True or False when the rules decide; None when only meaning can (free text)."""
    for rule in VALUE_RULES:
        decided = rule(expected, actual, case_sensitive)
        if decided is not NOT_MINE:
            return decided
    return False


def _numbers_in(text: str) -> list[Decimal]:
    return [Decimal(n).normalize() for n in re.findall(r"\d+(?:\.\d+)?", text.replace(",", ""))]


def _squash(value: Any) -> str:
    return re.sub(r"[^0-9a-z]", "", str(value).lower())


def _found_in(actual: Any, source: Any, preferred_keys: set[str], case_sensitive: bool) -> bool:
    """Whether `actual` equals a leaf of `source`, trying leaves under the preferred keys first."""
    leaves = list(leaf_values(source))
    leaves.sort(key=lambda kv: kv[0] not in preferred_keys)
    for _key, leaf in leaves:
        if values_equivalent(leaf, actual, case_sensitive=case_sensitive):
            return True
    return False


def placeholder_resolve(
    name: str,
    placeholder: str,
    actual: Any,
    *,
    task: str,
    context: dict,
    step_outputs: dict[int, Any],
    output_fields: dict[int, list[str]] | None = None,
    case_sensitive: bool = False,
) -> bool | None:
    """Whether `actual` is a value the placeholder allows; None when `placeholder` is not one."""
    if placeholder == FROM_CONTEXT:
        if _found_in(actual, context, {name}, case_sensitive):
            return True
        squashed = _squash(actual)
        return bool(squashed) and squashed in _squash(task)
    match = FROM_STEP.match(placeholder) if isinstance(placeholder, str) else None
    if not match:
        return None
    step = int(match.group(1))
    if step not in step_outputs:
        return False
    preferred = {name, *((output_fields or {}).get(step) or [])}
    return _found_in(actual, step_outputs[step], preferred, case_sensitive)


def parameter_score(
    name: str,
    expected: Any,
    actual: Any,
    *,
    present: bool = True,
    task: str = "",
    context: dict | None = None,
    step_outputs: dict[int, Any] | None = None,
    output_fields: dict[int, list[str]] | None = None,
    case_sensitive: bool = False,
    judge: ParameterJudge | None = None,
) -> ParamScore:
    """Score one parameter 1.0 / 0.5 / 0.0; the judge is asked only when the rules cannot decide.

    Against a spec, an optional parameter left out (or sent as null) scores 1.0, and a given
    value scores 1.0 when a rule equates it with one of the accepted values, else 0.0."""
    spec = parameter_spec(expected)
    if spec is not None:
        if not present or actual is None:
            score = 1.0 if spec.optional else 0.0
            return ParamScore(name, score, OPTIONAL if spec.optional else "missing", expected)
        if not spec.alternatives:
            return ParamScore(name, 1.0, OPTIONAL, expected, actual)
        # The list is closed: each value is compared by the rules, never by a judge's sense of
        # meaning, so a value no rule equates with one of them is not accepted.
        tried = [
            parameter_score(
                name,
                alternative,
                actual,
                task=task,
                context=context,
                step_outputs=step_outputs,
                output_fields=output_fields,
                case_sensitive=case_sensitive,
            )
            for alternative in spec.alternatives
        ]
        best = max(tried, key=lambda p: p.score if p.method != UNDECIDED else 0.0)
        if best.method == UNDECIDED:
            return ParamScore(name, 0.0, "deterministic", expected, actual)
        return ParamScore(name, best.score, best.method, expected, actual)
    if not present:
        return ParamScore(name, 0.0, "missing", expected, None)
    if isinstance(expected, str) and (expected == FROM_CONTEXT or FROM_STEP.match(expected)):
        ok = placeholder_resolve(
            name,
            expected,
            actual,
            task=task,
            context=context or {},
            step_outputs=step_outputs or {},
            output_fields=output_fields,
            case_sensitive=case_sensitive,
        )
        return ParamScore(name, 1.0 if ok else 0.0, "placeholder", expected, actual)
    decided = values_equivalent(expected, actual, case_sensitive=case_sensitive)
    if decided is not None:
        return ParamScore(name, 1.0 if decided else 0.0, "deterministic", expected, actual)
    if judge is None:
        return ParamScore(name, 0.5, UNDECIDED, expected, actual)
    score = judge(name, expected, actual, task)
    if score is None:
        return ParamScore(name, 0.5, UNREADABLE, expected, actual)
    return ParamScore(name, float(score), "llm", expected, actual)


def case_sensitive_params(context: dict, tool: str, names) -> set[str]:
    """Parameters whose case the tool respects, from its definition in the context's tool list.

    `{"name": T, "case_sensitive": true}` marks all of `names`; `"case_sensitive_params":
    [...]` marks some. Tools ignore case unless they say otherwise.
    """
    for definition in context.get("available_tools") or []:
        if isinstance(definition, dict) and definition.get("name") == tool:
            if definition.get("case_sensitive") is True:
                return set(names)
            return set(definition.get("case_sensitive_params") or [])
    return set()


def step_parameter_scores(
    reference_step: dict,
    actual_inputs: Any,
    *,
    task: str = "",
    context: dict | None = None,
    step_outputs: dict[int, Any] | None = None,
    output_fields: dict[int, list[str]] | None = None,
    judge: ParameterJudge | None = None,
) -> list[ParamScore]:
    """One score per reference input of an aligned step; extra inputs of the agent are ignored."""
    expected_inputs = reference_step.get("inputs") or {}
    actual_inputs = actual_inputs if isinstance(actual_inputs, dict) else {}
    sensitive = case_sensitive_params(
        context or {}, reference_step.get("tool", ""), expected_inputs
    )
    return [
        parameter_score(
            name,
            expected,
            actual_inputs.get(name),
            present=name in actual_inputs,
            task=task,
            context=context,
            step_outputs=step_outputs,
            output_fields=output_fields,
            case_sensitive=name in sensitive,
            judge=judge,
        )
        for name, expected in expected_inputs.items()
    ]


def mean_score(scores: list[ParamScore]) -> float:
    """The step's parameter accuracy; a step without reference inputs is fully accurate."""
    return sum(s.score for s in scores) / len(scores) if scores else 1.0
