"""The floors of the house, enforced by reading every module's imports.

core/ is the ground floor and imports no app. The pipeline apps stand on it in the order of
the data: accounts, traces, metrics (deterministic trajectory metrics, below any LLM), judges,
then guardrails and reviews side by side, golden, then webhooks (it hears every stage).
insights/ and explorer/ read every app; evalsite/ wires them all; demo/ (the demo data and the
simulated judge) reads every app and no app imports it. A module may import only
floors below its own, and may look a model up by app label (`apps.get_model`) or follow a
reverse relation (`trace.verdicts`, `Prefetch("review_items")`, `get_field("verdicts")`) only
to a model on its own floor or below; the pipeline apps never walk relations by reflection
(`related_model`). So the left-to-right rule cannot be bent through the database either.
And a name is imported from the module that defines it, never through one that re-exports it.
"""

import ast
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
from django.apps import apps

ROOT = Path(__file__).resolve().parents[2]

FLOORS = {
    "core": 0,
    "accounts": 1,
    "traces": 2,
    "metrics": 3,
    "judges": 4,
    "guardrails": 5,
    "reviews": 5,
    "golden": 6,
    "webhooks": 7,
    "insights": 8,
    "explorer": 8,
    "demo": 8,
    "evalsite": 9,
}
# The floors between core and the apps that read every app.
PIPELINE_APPS = tuple(app for app, floor in FLOORS.items() if 0 < floor < FLOORS["insights"])
# The LLM SDKs: only judges (its providers) may reach them, never the deterministic metrics.
LLM_CLIENTS = {"anthropic", "openai"}


@dataclass(frozen=True)
class Reach:
    """One module reaching another package: by an import, or by a model looked up by label."""

    module: str
    line: int
    target: str
    how: str

    def __str__(self) -> str:
        return f"{self.module}:{self.line} {self.how} {self.target}"


def _get_model_label(node: ast.Call) -> str | None:
    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
    if name != "get_model" or not node.args:
        return None
    first = node.args[0]
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return first.value.split(".")[0]
    return None


@cache
def rightward_relations(package: str) -> dict[str, frozenset[str]]:
    """The reverse relations a package's modules could follow to the right: each relation of a
    model on its floor or below (`verdicts` on Trace, for traces) that leads to a model of an
    app above it, by name, with the apps it leads to. Other apps' models count as the ground."""
    own = FLOORS[package]
    found: dict[str, set[str]] = {}
    for model in apps.get_models():
        if FLOORS.get(model._meta.app_label, 0) > own:
            continue
        for relation in model._meta.related_objects:
            target = relation.related_model._meta.app_label
            if FLOORS.get(target, 0) > own:
                found.setdefault(relation.get_accessor_name(), set()).add(target)
    return {name: frozenset(targets) for name, targets in found.items()}


# Calls whose string arguments are field lookups (a dict's .get("annotations") is not).
LOOKUP_CALLS = frozenset(
    {
        "get_field",
        "select_related",
        "prefetch_related",
        "Prefetch",
        "values",
        "values_list",
        "only",
        "defer",
        "order_by",
        "F",
        "OuterRef",
        "Count",
        "Sum",
        "Min",
        "Max",
        "Avg",
    }
)


def _relation_names_used(node: ast.AST) -> list[str]:
    """Names a node may follow a relation by: an attribute, a lookup string or a keyword."""
    if isinstance(node, ast.Attribute):
        return [node.attr]
    if not isinstance(node, ast.Call):
        return []
    func = node.func
    called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    lookups = [k.arg for k in node.keywords if k.arg]
    if called in LOOKUP_CALLS:
        lookups += [a.value for a in node.args if isinstance(a, ast.Constant)]
    return [value.split("__")[0] for value in lookups if isinstance(value, str)]


def reaches_in_source(source: str, module: str) -> list[Reach]:
    """Every package a module's source reaches, with the line, top-level name and manner."""
    reaches = []
    package = module.split("/")[0]
    relations = rightward_relations(package) if package in FLOORS else {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            reaches += [
                Reach(module, node.lineno, a.name.split(".")[0], "imports") for a in node.names
            ]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            reaches.append(Reach(module, node.lineno, node.module.split(".")[0], "imports"))
        elif isinstance(node, ast.Call) and (label := _get_model_label(node)):
            reaches.append(Reach(module, node.lineno, label, "gets a model of"))
        if isinstance(node, ast.Attribute) and node.attr == "related_model":
            reaches.append(Reach(module, node.lineno, "any app", "walks relations to"))
        for name in _relation_names_used(node):
            reaches += [
                Reach(module, node.lineno, target, f"follows `{name}` to")
                for target in sorted(relations.get(name, ()))
            ]
    return reaches


def floor_violations(package: str, reaches: list[Reach]) -> list[Reach]:
    """Reaches from `package` to a floor that is not below it (its own floor is its own).

    Walking relations by reflection could reach any app, so only the top floors may."""
    own = FLOORS[package]
    top = max(FLOORS.values()) - 1
    return [
        reach
        for reach in reaches
        if (reach.target in FLOORS and reach.target != package and FLOORS[reach.target] >= own)
        or (reach.target == "any app" and own < top)
    ]


def package_reaches(package: str) -> list[Reach]:
    reaches = []
    for path in sorted((ROOT / package).rglob("*.py")):
        module = str(path.relative_to(ROOT))
        reaches += reaches_in_source(path.read_text(encoding="utf-8"), module)
    return reaches


@pytest.mark.parametrize("package", FLOORS)
def test_each_package_reaches_only_the_floors_below_it(package):
    assert [str(r) for r in floor_violations(package, package_reaches(package))] == []


def test_core_imports_no_app():
    reached = {reach.target for reach in package_reaches("core")}
    assert reached.isdisjoint(FLOORS.keys() - {"core"})


@pytest.mark.parametrize("package", PIPELINE_APPS)
def test_no_app_imports_the_site_package_insights_explorer_or_the_demo(package):
    reached = {reach.target for reach in package_reaches(package)}
    assert reached.isdisjoint({"evalsite", "insights", "explorer", "demo"})


@pytest.mark.parametrize("package", sorted(FLOORS.keys() - {"demo"}))
def test_the_demo_is_a_device_no_package_depends_on(package):
    """The demo data and the simulated judge are started (`-m demo.simulator`, `load_demo`),
    never imported: only tests and benchmarks import them."""
    assert [str(r) for r in package_reaches(package) if r.target == "demo"] == []


def test_metrics_are_deterministic_and_reach_no_judging():
    reached = {reach.target for reach in package_reaches("metrics")}
    assert reached.isdisjoint({"judges", "guardrails", *LLM_CLIENTS})
    assert {"traces", "core"} <= reached  # the walk does see what metrics read


def test_the_walker_sees_imports_inside_functions_and_model_lookups_by_label():
    source = (
        "from judges.models import Verdict\n"
        "def later():\n"
        "    import reviews.services\n"
        "    return apps.get_model('golden', 'GoldenExample')\n"
    )
    reaches = reaches_in_source(source, "traces/example.py")
    assert [str(r) for r in floor_violations("traces", reaches)] == [
        "traces/example.py:1 imports judges",
        "traces/example.py:3 imports reviews",
        "traces/example.py:4 gets a model of golden",
    ]


def test_the_walker_sees_reverse_relations_followed_to_the_right():
    source = (
        "def rows(trace, user):\n"
        "    items = Trace._meta.get_field('review_items').related_model\n"
        "    verdicts = trace.verdicts.all()\n"
        "    return Trace.objects.prefetch_related(Prefetch('judgments')).filter(\n"
        "        golden_examples__isnull=True, spans__kind='tool')\n"
    )
    reaches = reaches_in_source(source, "traces/example.py")
    assert sorted(str(r) for r in floor_violations("traces", reaches)) == [
        "traces/example.py:2 follows `review_items` to reviews",
        "traces/example.py:2 walks relations to any app",
        "traces/example.py:3 follows `verdicts` to judges",
        "traces/example.py:4 follows `golden_examples` to golden",
        "traces/example.py:4 follows `judgments` to judges",
    ]
    # The same reads are a top floor's to make.
    assert floor_violations("explorer", reaches_in_source(source, "explorer/example.py")) == []


def test_the_walker_finds_the_pipeline_reading_to_its_left():
    """The rule above is only as good as the walk: it must see the imports that do exist."""
    assert "traces" in {reach.target for reach in package_reaches("judges")}
    assert "core" in {reach.target for reach in package_reaches("golden")}


@cache  # every file's imports ask for the same few hundred modules
def _module_path(dotted: str) -> Path | None:
    for candidate in (
        ROOT / (dotted.replace(".", "/") + ".py"),
        ROOT / dotted.replace(".", "/") / "__init__.py",
    ):
        if candidate.exists():
            return candidate
    return None


@cache
def _names_defined_and_imported(path: Path) -> tuple[set[str], set[str]]:
    defined: set[str] = set()
    imported: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imported |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, ast.Assign):
            defined |= {target.id for target in node.targets if isinstance(target, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            defined.add(node.target.id)
    return defined, imported


def names_taken_through_a_reexport(source: str, module: str) -> list[str]:
    """`from X import name` where X does not define `name` but only imports it."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module):
            continue
        if node.module.split(".")[0] not in FLOORS or not (path := _module_path(node.module)):
            continue
        defined, imported = _names_defined_and_imported(path)
        found += [
            f"{module}:{node.lineno} {alias.name} from {node.module}"
            for alias in node.names
            if alias.name in imported
            and alias.name not in defined
            and not _module_path(f"{node.module}.{alias.name}")
        ]
    return found


@pytest.mark.parametrize("package", [*FLOORS, "tests", "bench"])
def test_names_are_imported_from_where_they_live(package):
    found = []
    for path in sorted((ROOT / package).rglob("*.py")):
        module = str(path.relative_to(ROOT))
        found += names_taken_through_a_reexport(path.read_text(encoding="utf-8"), module)
    assert found == []


def test_the_reexport_check_sees_a_facade():
    # reviews.services imports LockLost from reviews.claims for its own use
    source = "from reviews.services import LockLost\nfrom reviews.claims import LockLost\n"
    assert names_taken_through_a_reexport(source, "x.py") == [
        "x.py:1 LockLost from reviews.services"
    ]
