"""Raw SQL lives behind walls: only modules whose name says they hold it (`sql.py`,
`rows.py`, `*_sql.py`, `*_rows.py`) open cursors, execute statements, write SQL text, branch
on the database vendor, or build model instances by hand; and no module spells a model's table
name, which comes from `Model._meta.db_table` (only a model's own `Meta.db_table` spells it).

So a reader of services and selectors sees business rules, and a reader of the SQL sees all of
it in a few named places. Django's own per-backend hooks (a field's `db_type`, an index's
`create_sql`) branch on the vendor where Django asks them to.
"""

import ast
import re
from pathlib import Path

import pytest
from django.apps import apps

from tests.architecture.test_import_rules import FLOORS

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = tuple(FLOORS)
SQL_MODULE = re.compile(r"(^|_)(sql|rows)\.py$")
# Django calls these per backend with the connection; branching on its vendor is their job.
BACKEND_HOOKS = {"db_type", "get_db_prep_value", "as_sql", "create_sql", "remove_sql"}
SQL_TEXT = re.compile(
    r"^\s*(SELECT|INSERT INTO|UPDATE|DELETE FROM|COPY|CREATE|ALTER|DROP|WITH|SET LOCAL)\b"
)


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            found.add(id(first.value))
    return found


def _table_names_kept(tree: ast.AST) -> set[int]:
    """A model's `Meta.db_table`: a model that moved app keeps the table it was created with."""
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and [getattr(target, "id", "") for target in node.targets] == ["db_table"]
        and isinstance(node.value, ast.Constant)
    }


def _table_names() -> set[str]:
    return {model._meta.db_table for model in apps.get_models()}


def raw_sql_in(source: str, tables: set[str]) -> list[str]:
    """What in a module's source is raw SQL: each with its line."""
    tree = ast.parse(source)
    docstrings = _docstrings(tree) | _table_names_kept(tree)
    hooks = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in BACKEND_HOOKS
    ]
    in_hook = {id(inner) for hook in hooks for inner in ast.walk(hook)}
    table = re.compile(r"\b(" + "|".join(sorted(map(re.escape, tables))) + r")\b")
    found = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in {"execute", "executemany", "cursor", "RawSQL", "raw", "extra"}:
                found.append(f"{line}: {name}()")
            if name in {"ModelState", "__new__"}:
                found.append(f"{line}: builds an instance by hand ({name})")
        elif isinstance(node, ast.Attribute):
            if node.attr == "vendor" and id(node) not in in_hook:
                found.append(f"{line}: branches on the database vendor")
            if node.attr in {"__dict__", "_state"} and isinstance(node.ctx, ast.Store):
                found.append(f"{line}: writes {node.attr}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) in docstrings:
                continue
            if SQL_TEXT.match(node.value):
                found.append(f"{line}: SQL text {node.value.split()[0]}")
            if tables and (hit := table.search(node.value)):
                found.append(f"{line}: spells the table {hit.group(1)}")
    return found


def modules():
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" not in path.parts:
                yield str(path.relative_to(ROOT)), path


def test_raw_sql_is_only_in_modules_named_for_it():
    tables = _table_names()
    outside = {}
    for name, path in modules():
        if SQL_MODULE.search(path.name):
            continue
        if found := raw_sql_in(path.read_text(encoding="utf-8"), tables):
            outside[name] = found
    assert outside == {}


def test_sql_modules_take_table_names_from_meta():
    tables = _table_names()
    spelled = {}
    for name, path in modules():
        if not SQL_MODULE.search(path.name):
            continue
        source = path.read_text(encoding="utf-8")
        found = [f for f in raw_sql_in(source, tables) if "spells the table" in f]
        if found:
            spelled[name] = found
    assert spelled == {}


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("with connection.cursor() as c:\n    c.execute('SELECT 1')\n", 3),
        ("if connection.vendor == 'postgresql':\n    pass\n", 1),
        ("q = Q(pk__in=RawSQL(sql, []))\n", 1),
        ("row.__dict__ = values\nrow._state = ModelState()\n", 3),
        ("sql = 'UPDATE traces_trace SET x = 1'\n", 2),
        ("def db_type(self, connection):\n    return connection.vendor\n", 0),
        ('def f():\n    """SELECT is a word a docstring may use."""\n', 0),
        ("query = request.GET.copy()\n", 0),
        ('class Meta:\n    db_table = "traces_trace"\n', 0),
        ('label = "traces_trace"\n', 1),
    ],
)
def test_the_walker_sees_raw_sql(source, expected):
    assert len(raw_sql_in(source, {"traces_trace"})) == expected
