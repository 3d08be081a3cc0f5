"""An earlier commit's tree, for benchmarks that measure this code against the code before."""

import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def tree_at(ref: str) -> Path:
    """The repository as it was at `ref`, unpacked in a temporary folder."""
    folder = Path(tempfile.mkdtemp(prefix="evalsite-before-"))
    archive = subprocess.run(["git", "archive", ref], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    return folder
