"""Rubric templates rendered under a real memory cap: a subprocess whose address space is
limited (resource.setrlimit) renders hostile templates; each is refused with its bound
named, quickly, and none reaches a MemoryError or the cap."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Above what Django and the sandbox need; far below what the templates would build unbounded.
HEADROOM_BYTES = 600 * 1024 * 1024

HOSTILE = {
    "tilde doubling in a namespace": (
        "{% set ns = namespace(s='ab') %}{% for i in range(40) %}"
        "{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s|length }}"
    ),
    "tilde of four parts, not output": (
        "{% set s = 'x' * 400000 %}{% set t = s ~ s ~ s ~ s %}{{ t|length }}"
    ),
    "tilde of a list of shared strings": (
        "{% set big = ['x' * 999999] * 999999 %}{% set t = 'a' ~ big %}{{ t|length }}"
    ),
    "a list printed whole": "{{ ['x' * 999999] * 999999 }}",
    "a list through |string": "{{ (['x' * 999999] * 999999)|string|length }}",
    "a list through |tojson": "{{ (['x' * 999999] * 999999)|tojson|length }}",
    "sum of lists": "{{ ([['x'] * 500000] * 1000)|sum(start=[])|length }}",
    "percent-format of a list": "{{ ('%s' % ((['x' * 999999] * 999999),))|length }}",
    "str.format of a list": "{{ '{}'.format(['x' * 999999] * 999999)|length }}",
    "join of shared strings": "{{ (['x' * 999999] * 999999)|join|length }}",
    "replace on a list": "{{ (['x' * 999999] * 999999)|replace('x', 'y')|length }}",
    "map to string then join": "{{ (['x' * 999999] * 999)|map('string')|join|length }}",
    "bytes repeated": "{{ (('x' * 999999).encode() * 999999)|length }}",
    "set block doubling": (
        "{% set ns = namespace(s='ab') %}{% for i in range(40) %}"
        "{% set block %}{{ ns.s }}{{ ns.s }}{% endset %}{% set ns.s = block %}{% endfor %}"
    ),
}

SCRIPT = r"""
import json, os, resource, sys, time
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
import django
django.setup()
from judges.prompts import _env
from judges.template_sandbox import TemplateBoundExceeded, render_bounded

def used_bytes():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[0]) * resource.getpagesize()

cap = used_bytes() + int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
results = {}
for name, source in json.loads(sys.stdin.read()).items():
    started = time.monotonic()
    try:
        render_bounded(_env.from_string(source), {})
        outcome = "rendered"
    except TemplateBoundExceeded as exc:
        outcome = "refused: " + str(exc)
    except MemoryError:
        outcome = "MemoryError"
    results[name] = [outcome, round(time.monotonic() - started, 2)]
print(json.dumps(results))
"""


def test_hostile_templates_are_refused_under_a_memory_cap():
    answer = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(HEADROOM_BYTES)],
        input=json.dumps(HOSTILE),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert answer.returncode == 0, answer.stderr[-3000:]
    results = json.loads(answer.stdout.strip().splitlines()[-1])

    failures = {
        name: outcome
        for name, (outcome, seconds) in results.items()
        if not outcome.startswith("refused") or seconds > 3
    }
    assert failures == {}, failures


@pytest.mark.parametrize(
    "source",
    [
        "{{ 'a' ~ 'b' ~ 1 }}",
        "{% set ns = namespace(s='ab') %}{% for i in range(8) %}{% set ns.s = ns.s ~ ns.s %}"
        "{% endfor %}{{ ns.s|length }}",
        "{{ ['x', 'y']|join(', ') ~ ' and ' ~ [1, 2]|sum }}",
        "{{ [['a'], ['b']]|sum(start=[]) }}",
        "{{ '%s items' % 3 }} {{ '{} items'.format(3) }}",
    ],
)
def test_ordinary_templates_still_render(source):
    from judges.prompts import _env
    from judges.template_sandbox import render_bounded

    assert render_bounded(_env.from_string(source), {})
