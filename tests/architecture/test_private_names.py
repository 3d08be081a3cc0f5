"""A name that starts with an underscore is private to its module: no other module imports
it. A helper two modules need is public, named for what it does, in the module that owns the
idea (or in core/ when no app does), so a reader of the importer knows it is meant to be used
there and a reader of the owner knows who depends on it.
"""

import ast
from pathlib import Path

from tests.architecture.test_import_rules import FLOORS

ROOT = Path(__file__).resolve().parents[2]
# The benchmarks are read too: they import the apps and each other, some by their plain name
# (`from trees import tree_at`, with bench/ on the path).
BENCH_MODULES = tuple(sorted(path.stem for path in (ROOT / "bench").glob("[!_]*.py")))
PACKAGES = (*FLOORS, "bench", *BENCH_MODULES)
READ = (*FLOORS, "bench")
# (importing module, imported module): names defined in ingest, which is being reworked;
# they become public there, and these entries go.
STILL_TO_MOVE: dict[tuple[str, str], str] = {}


def private_imports_in(source: str, module: str) -> list[str]:
    """`module:line imported.module._name` for each private name imported from another module."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module):
            continue
        if node.module.split(".")[0] not in PACKAGES:
            continue  # a library's private names are the library's business
        for alias in node.names:
            if alias.name.startswith("_") and not alias.name.startswith("__"):
                found.append(f"{module}:{node.lineno} {node.module}.{alias.name}")
    return found


def test_no_module_imports_another_modules_private_name():
    found = []
    for package in READ:
        for path in sorted((ROOT / package).rglob("*.py")):
            module = str(path.relative_to(ROOT))
            for hit in private_imports_in(path.read_text(encoding="utf-8"), module):
                imported = hit.split(" ")[1].rsplit(".", 1)[0]
                if (module, imported) not in STILL_TO_MOVE:
                    found.append(hit)
    assert found == []


def test_every_entry_still_to_move_is_still_needed():
    needed = set()
    for module, imported in STILL_TO_MOVE:
        hits = private_imports_in((ROOT / module).read_text(encoding="utf-8"), module)
        if any(hit.split(" ")[1].startswith(imported + "._") for hit in hits):
            needed.add((module, imported))
    assert needed == set(STILL_TO_MOVE)


def test_the_walker_sees_private_names_and_leaves_libraries_and_dunders_alone():
    source = (
        "from reviews.services import _annotation_write, review_item_enqueue\n"
        "from django.db.models.base import _deferred\n"
        "from traces import __version__\n"
        "from trees import _tree_unpack\n"
        "def later():\n"
        "    from judges.views import _int\n"
    )
    assert private_imports_in(source, "reviews/example.py") == [
        "reviews/example.py:1 reviews.services._annotation_write",
        "reviews/example.py:4 trees._tree_unpack",
        "reviews/example.py:6 judges.views._int",
    ]
