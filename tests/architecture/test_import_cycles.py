"""No two modules of an app import each other, directly or round a longer circle.

A circle means neither module can be read (or loaded) without the other: the shared part
belongs in a module both import (traces/ingest/otlp_wire.py is the one OTLP/HTTP's decoders
share). A deferred import inside a function still closes a circle, so every import counts,
except those under `if TYPE_CHECKING:`, which never run, and one sanctioned way back: a
service enqueues its app's Celery task by importing the `tasks` module inside the function
that enqueues (`transaction.on_commit(lambda: task.delay(pk))`), while the task calls the
service, as STYLE.md asks of every task.
"""

import ast
from functools import cache
from pathlib import Path

from tests.architecture.test_import_rules import FLOORS

ROOT = Path(__file__).resolve().parents[2]


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def _app_modules(app: str) -> dict[str, Path]:
    return {_module_name(path): path for path in sorted((ROOT / app).rglob("*.py"))}


def _runtime_imports(tree: ast.Module):
    """(import node, whether it is deferred into a function) anywhere in the module, leaving
    out `if TYPE_CHECKING:` bodies."""
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, deferred = stack.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            stack.extend((child, deferred) for child in node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, deferred
        inside = deferred or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        stack.extend((child, inside) for child in ast.iter_child_nodes(node))


def _enqueues(target: str, deferred: bool) -> bool:
    return deferred and target.rpartition(".")[2] == "tasks"


def imported_modules(source: str, module: str, known: set[str], *, package: bool) -> set[str]:
    """The modules among `known` that `module` (a package's __init__ when `package`) imports:
    `from a.b import c` counts a.b.c when c is a module, else a.b."""
    found = set()
    parts = module.split(".") if package else module.split(".")[:-1]
    for node, deferred in _runtime_imports(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = {alias.name for alias in node.names}
        else:
            base = node.module or ""
            if node.level:
                base = ".".join([*parts[: len(parts) - node.level + 1], *([base] if base else [])])
            submodules = {f"{base}.{alias.name}" for alias in node.names}
            names = (submodules & known) | ({base} if not submodules <= known else set())
        found.update(name for name in names if not _enqueues(name, deferred))
    return (found & known) - {module}


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(groups)


def app_graph(app: str) -> dict[str, set[str]]:
    modules = _app_modules(app)
    known = set(modules)
    return {
        name: imported_modules(
            path.read_text(encoding="utf-8"), name, known, package=path.name == "__init__.py"
        )
        for name, path in modules.items()
    }


def test_no_app_has_modules_that_import_each_other():
    assert {app: import_cycles(app_graph(app)) for app in FLOORS} == {app: [] for app in FLOORS}


def test_the_reader_sees_deferred_and_relative_imports_and_skips_type_checking_and_enqueues():
    known = {"shop", "shop.orders", "shop.prices", "shop.tax", "shop.tasks"}
    source = (
        "from typing import TYPE_CHECKING\n"
        "from . import prices\n"
        "if TYPE_CHECKING:\n"
        "    from shop.tax import Rate\n"
        "def later():\n"
        "    import shop.tax\n"
        "    from shop.tasks import send_task\n"
    )
    assert imported_modules(source, "shop.orders", known, package=False) == {
        "shop.prices",
        "shop.tax",
    }
    assert imported_modules("from shop import orders, tax\n", "shop", known, package=True) == {
        "shop.orders",
        "shop.tax",
    }
    # A module-level import of the task module is no enqueue: it counts.
    assert imported_modules("from shop.tasks import t\n", "shop.orders", known, package=False) == {
        "shop.tasks"
    }
    graph = {"shop.orders": {"shop.prices"}, "shop.prices": {"shop.tax"}, "shop.tax": set()}
    assert import_cycles(graph) == []
    graph["shop.tax"] = {"shop.orders"}
    assert import_cycles(graph) == [["shop.orders", "shop.prices", "shop.tax"]]
