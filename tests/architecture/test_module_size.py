"""No Python module of the project is over 800 lines.

A module does one thing, and its length follows from that thing: one may pass 400 lines when
it is one thing (the models of an app, the settings), and a split made only to stay under a
number scatters one idea over files. The ceiling is where one thing stops being plausible, and
a module that reaches it is split along its meaning, not its line count.

Migrations are generated, so they do not count; neither does anything in a hidden folder
(the virtualenv, git).
"""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_LINES = 800
SKIPPED_FOLDERS = {"migrations", "node_modules", "__pycache__"}


def modules_over(root: Path, limit: int = MAX_LINES) -> list[str]:
    """Each project module under `root` longer than `limit` lines, with its length."""
    found = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [
            name for name in subfolders if not name.startswith(".") and name not in SKIPPED_FOLDERS
        ]
        for name in files:
            if not name.endswith(".py"):
                continue
            path = Path(folder) / name
            with path.open(encoding="utf-8") as source:
                lines = sum(1 for _ in source)
            if lines > limit:
                found.append(f"{path.relative_to(root)}: {lines} lines")
    return sorted(found)


def test_no_module_is_over_the_ceiling():
    assert modules_over(ROOT) == []


def test_the_count_sees_a_long_module_and_skips_migrations_and_hidden_folders(tmp_path):
    long_module = "x = 1\n" * (MAX_LINES + 1)
    for place in ("app/views.py", "app/migrations/0001_initial.py", ".venv/lib/big.py"):
        (tmp_path / place).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / place).write_text(long_module)
    (tmp_path / "app/short.py").write_text("x = 1\n" * MAX_LINES)

    assert modules_over(tmp_path) == [f"app/views.py: {MAX_LINES + 1} lines"]
