"""An earlier commit's tree, for benchmarks that measure this code against the code before."""

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def tree_at(ref: str) -> Path:
    """The repository as it was at `ref`, unpacked in a temporary folder."""
    folder = Path(tempfile.mkdtemp(prefix="evalsite-before-"))
    archive = subprocess.run(["git", "archive", ref], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    bytecode_compile(folder)
    return folder


def trees_compared(before: str) -> dict[str, Path]:
    """The trees a bench measures, in the order it runs them: `before`'s (none if it is '')
    then this checkout."""
    trees = {"before": tree_at(before)} if before else {}
    return {**trees, "now": ROOT}


def short_commit(ref: str) -> str:
    """The abbreviated commit `ref` names, for the line that says what was measured against."""
    command = ["git", "rev-parse", "--short", ref]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True).stdout.strip()


def bytecode_compile(tree: Path) -> None:
    """Write the bytecode of every module of `tree`, so that neither tree's launch compiles its
    sources while the other's reads them ready-made: where PYTHONDONTWRITEBYTECODE is set, a
    fresh tree would compile everything at every launch."""
    command = [sys.executable, "-m", "compileall", "-q", "-x", r"/\.venv/", str(tree)]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
