"""The Jinja2 sandbox rubric templates run in, bounded in what they allocate and how long they run.

A rubric's author may compute, not exhaust the process: `{{ ('a' * 10**7)|length }}` would run
at save time in the web process and at judge time in every worker. Bounds, each refused with
TemplateBoundExceeded saying which:
- a value (repetition, concatenation with `+` or `~`, padding, joining, replacing, formatting,
  summing) over the output bound is refused before it is built; integers past MAX_INT_BITS
  likewise;
- a value turned into text (printed, `~`, a filter, `%`, `.format`) is measured first, without
  building the text: a list holding one long string many times prints as its every copy;
- the rendered output (and any `{% set %}` block or macro) stops at the output bound;
- rendering stops at its time bound, checked on every line the template executes.
Both bounds are settings read at each render: RUBRIC_RENDER_MAX_CHARS, RUBRIC_RENDER_SECONDS.
"""

import functools
import re
import sys
import threading
import time
from collections.abc import Iterable

from django.conf import settings
from jinja2.compiler import CodeGenerator
from jinja2.exceptions import SecurityError
from jinja2.runtime import markup_join, str_join
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.utils import _PassArg

MAX_INT_BITS = 20_000
TEMPLATE_FILENAME = "<template>"
# Width and precision in %-formatting and in str.format specs: `%99999999s`, `{:>99999999}`.
PERCENT_SPEC = re.compile(r"%(?:\([^)]*\))?[-+ #0]*(\d*|\*)(?:\.(\d+|\*))?[a-zA-Z%]")
BRACE_SPEC = re.compile(r"\{[^{}]*?:[^{}]*?(\d+)(?:\.(\d+))?[^{}]*\}")
_limits = threading.local()


class TemplateBoundExceeded(SecurityError):
    """The template would allocate or run past its bound."""


def _max_chars() -> int:
    return settings.RUBRIC_RENDER_MAX_CHARS


def _over(size: int, what: str) -> None:
    limit = _max_chars()
    if size > limit:
        raise TemplateBoundExceeded(
            f"{what} of {size:,} characters is over the bound of {limit:,} "
            "(RUBRIC_RENDER_MAX_CHARS)."
        )


def _deadline_check() -> None:
    deadline = getattr(_limits, "deadline", None)
    if deadline is not None and time.monotonic() > deadline:
        _limits.deadline = None  # raise once; the template's own cleanup may run more lines
        raise TemplateBoundExceeded(
            f"Rendering took longer than {settings.RUBRIC_RENDER_SECONDS:g} s "
            "(RUBRIC_RENDER_SECONDS); a loop runs too long."
        )


def _trace_lines(frame, event, arg):
    if event == "line":
        _deadline_check()
    return _trace_lines


def _trace_calls(frame, event, arg):
    # Only the template's own compiled code is traced line by line; library code runs free.
    if frame.f_code.co_filename != TEMPLATE_FILENAME:
        return None
    _deadline_check()
    return _trace_lines


def _size(value) -> int:
    return len(value) if isinstance(value, (str, bytes, list, tuple)) else 0


# Characters counted for a value that is not a string or a container (a number, None, an
# object): its text is short, since integers are bounded by MAX_INT_BITS.
_SCALAR_CHARS = 24
# Filters that do not turn their whole input into text; every other filter's input is
# measured as text before it runs.
SIZE_AGNOSTIC_FILTERS = frozenset(
    {
        "abs", "attr", "batch", "count", "d", "default", "dictsort", "first", "float", "groupby",
        "int", "items", "join", "last", "length", "list", "map", "max", "min", "random",
        "reject", "rejectattr", "reverse", "round", "select", "selectattr", "slice", "sort",
        "sum", "unique",
    }
)  # fmt: skip


def _text_size(value, limit: int) -> int:
    """About how many characters str(value) has, counted without building it and only until
    past `limit`: containers are walked, so a list that holds one long string a million
    times counts every copy."""
    if isinstance(value, str):
        return len(value)
    total, pending = 0, [value]
    while pending and total <= limit:
        item = pending.pop()
        if isinstance(item, (str, bytes)):
            total += len(item) + 4  # quotes, comma and space around an item
        elif isinstance(item, (list, tuple, set, frozenset)):
            total += 2
            pending.extend(item)
        elif isinstance(item, dict):
            total += 2
            pending.extend(item.keys())
            pending.extend(item.values())
        else:
            total += _SCALAR_CHARS
    return total


def _over_text(value, what: str) -> None:
    _over(_text_size(value, _max_chars()), what)


def _sum_size(values: list, start) -> int:
    """Items of `start` plus all the values' items: what |sum(start=[]) concatenates."""
    limit, total = _max_chars(), _size(start)
    for value in values:
        total += _size(value)
        if total > limit:
            break
    return total


def _int_bits(value) -> int:
    return abs(value).bit_length() if isinstance(value, int) else 0


def _format_widths(text: str, args=()) -> int:
    """The widest field a format string asks for (a `*` takes its width from the arguments)."""
    widths = [0]
    for pattern in (PERCENT_SPEC, BRACE_SPEC):
        for groups in pattern.findall(text):
            for group in groups:
                if group == "*":
                    widths += [abs(a) for a in args if isinstance(a, int)]
                elif group:
                    widths.append(int(group))
    return max(widths)


def _bounded_filter(name: str, original):
    """A builtin filter that refuses, before building it, a result over the bound."""

    @functools.wraps(original)
    def bounded(*args, **kwargs):
        _deadline_check()
        # Environment- and context-taking filters get that first; the value comes next.
        skip = 1 if _PassArg.from_obj(original) is not None else 0
        values = list(args[skip:])
        value = values[0] if values else None
        rest = values[1:]
        if name not in SIZE_AGNOSTIC_FILTERS:
            _over_text(value, f"The value given to |{name}")
        if name in ("center", "indent") and rest and isinstance(rest[0], int):
            lines = str(value).count("\n") + 1
            _over(len(str(value)) + rest[0] * lines, f"|{name} of this width")
        if name == "join" and isinstance(value, Iterable) and not isinstance(value, str):
            value = list(value)
            separator = str(rest[0] if rest else kwargs.get("d", ""))
            joined = _text_size(value, _max_chars()) + len(separator) * len(value)
            _over(joined, "|join")
            args = (*args[:skip], value, *args[skip + 1 :])
        if name == "replace" and len(rest) >= 2:
            old, new = str(rest[0]), str(rest[1])
            count = str(value).count(old) if old else len(str(value)) + 1
            _over(len(str(value)) + count * len(new), "|replace")
        if name == "wordwrap":
            wrap = str(kwargs.get("wrapstring") or (rest[3] if len(rest) > 3 else "") or "\n")
            _over(len(str(value)) * (1 + len(wrap)), "|wordwrap")
        if name == "format":
            arguments = (*rest, *kwargs.values())
            widths = _format_widths(str(value), arguments)
            _over(len(str(value)) + widths + _text_size(arguments, _max_chars()), "|format")
        if name == "sum" and isinstance(value, Iterable):
            value = list(value)
            start = kwargs.get("start", rest[1] if len(rest) > 1 else 0)
            if isinstance(start, (str, bytes, list, tuple)):
                _over(_sum_size(value, start), "|sum")
            args = (*args[:skip], value, *args[skip + 1 :])
        if name in ("batch", "slice") and rest and isinstance(rest[0], int):
            _over(rest[0], f"|{name} count")
        if name == "tojson":
            indent = kwargs.get("indent", rest[0] if rest else None)
            if isinstance(indent, int):
                _over(len(str(value)) * (1 + indent), "|tojson indent")
        result = original(*args, **kwargs)
        _over(_size(result), f"|{name}")
        return result

    return bounded


def _output_measured(value):
    _over_text(value, "A printed value")
    return value


class _BoundedCodeGenerator(CodeGenerator):
    def visit_Concat(self, node, frame) -> None:
        self.write("environment.concat_values((")
        for argument in node.nodes:
            self.visit(argument, frame)
            self.write(", ")
        self.write("))")


class BoundedSandbox(ImmutableSandboxedEnvironment):
    """Jinja's immutable sandbox with every way of building a big value bounded."""

    code_generator_class = _BoundedCodeGenerator
    intercepted_binops = frozenset(["*", "+", "**", "%"])

    def __init__(self, **options):
        super().__init__(**options)
        # Every `{{ value }}` is measured before it is turned into text.
        self.finalize = _output_measured
        self.filters = {name: _bounded_filter(name, f) for name, f in self.filters.items()}
        # lipsum(n=10**9) builds its text in one call; the rest of the globals are harmless.
        self.globals.pop("lipsum", None)

    def call_binop(self, context, operator, left, right):
        _deadline_check()
        powers = operator == "**" and isinstance(left, int) and isinstance(right, int)
        if powers and max(1, _int_bits(left)) * right > MAX_INT_BITS:
            raise TemplateBoundExceeded(f"A power with exponent {right} is over the integer bound.")
        if operator == "*":
            for sequence, times in ((left, right), (right, left)):
                if isinstance(sequence, (str, bytes, list, tuple)) and isinstance(times, int):
                    _over(len(sequence) * times, "A repeated value")
            if _int_bits(left) + _int_bits(right) > MAX_INT_BITS:
                raise TemplateBoundExceeded("A product over the integer bound is refused.")
        if operator == "+":
            _over(_size(left) + _size(right), "A concatenated value")
        if operator == "%" and isinstance(left, str):
            args = right if isinstance(right, tuple) else (right,)
            widest = _format_widths(left, args)
            _over(len(left) + widest + _text_size(args, _max_chars()), "A format")
        return super().call_binop(context, operator, left, right)

    def call(__self, __context, __obj, *args, **kwargs):  # noqa: N805 - Jinja's own signature
        _deadline_check()
        method = getattr(__obj, "__wrapped__", __obj)  # the sandbox wraps str.format
        owner = getattr(method, "__self__", None)
        name = getattr(method, "__name__", "")
        if isinstance(owner, str):
            _str_method_check(owner, name, args, kwargs)
        result = super().call(__context, __obj, *args, **kwargs)
        _over(_size(result), f".{name}()" if name else "A call's result")
        return result

    def concat_values(self, values: tuple) -> str:
        """`a ~ b ~ ...`: the parts measured as text, then joined (compiled by
        _BoundedCodeGenerator in place of Jinja's unbounded str_join)."""
        _deadline_check()
        limit, total = _max_chars(), 0
        for value in values:
            total += _text_size(value, limit - total)
            _over(total, "A ~ concatenation")
        if any(hasattr(value, "__html__") for value in values):
            return markup_join(values)
        return str_join(values)

    def concat(self, parts) -> str:
        """The output of a template, a `{% set %}` block or a macro, stopped at the bound."""
        limit = _max_chars()
        pieces, total = [], 0
        for part in parts:
            total += len(part)
            if total > limit:
                _over(total, "The rendered output")
            pieces.append(part)
        return "".join(pieces)


def _str_method_check(text: str, name: str, args, kwargs) -> None:
    """Refuse, before the call, a str method whose result would pass the bound."""
    numbers = [a for a in (*args, *kwargs.values()) if isinstance(a, int)]
    if name in ("center", "ljust", "rjust", "zfill") and numbers:
        _over(max(numbers), f".{name}() width")
    if name == "expandtabs":
        _over(len(text) + text.count("\t") * max(numbers or [8]), ".expandtabs()")
    if name == "join" and args:
        items = args[0]
        if isinstance(items, (list, tuple, str)):
            _over(_text_size(items, _max_chars()) + len(text) * len(items), ".join()")
    if name == "replace" and len(args) >= 2:
        old, new = str(args[0]), str(args[1])
        count = text.count(old) if old else len(text) + 1
        _over(len(text) + count * len(new), ".replace()")
    if name in ("format", "format_map"):
        arguments = (*args, *kwargs.values())
        widths = _format_widths(text, arguments)
        _over(len(text) + widths + _text_size(arguments, _max_chars()), ".format()")


def render_bounded(template, context: dict) -> str:
    """Render with the time bound in force on this thread; TemplateBoundExceeded past it."""
    previous_trace = sys.gettrace()
    _limits.deadline = time.monotonic() + settings.RUBRIC_RENDER_SECONDS
    sys.settrace(_trace_calls)
    try:
        return template.render(context)
    finally:
        sys.settrace(previous_trace)
        _limits.deadline = None
