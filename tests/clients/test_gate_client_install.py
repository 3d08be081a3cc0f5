"""Installing the gate client from the checkout leaves the checkout as it was."""

import subprocess
import sys
import zipfile
from pathlib import Path

CLIENT = Path(__file__).resolve().parents[2] / "clients" / "evalsite-gate"


def _leftovers() -> list[str]:
    """Untracked or ignored paths under the client's folder, less Python's byte-code caches."""
    listed = subprocess.run(
        ["git", "status", "--porcelain", "--ignored", "--untracked-files=all", "."],
        cwd=CLIENT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    return [
        line
        for line in listed
        if line.startswith(("??", "!!")) and "__pycache__" not in line and ".pyc" not in line
    ]


def test_building_the_client_wheel_leaves_no_build_folders(tmp_path):
    before = _leftovers()
    # The build backend comes from the environment: the test reaches no package index.
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation"]
        + ["--wheel-dir", str(tmp_path), str(CLIENT)],
        check=True,
        capture_output=True,
    )

    assert _leftovers() == before
    (wheel,) = tmp_path.glob("evalsite_gate-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "evalsite_gate/cli.py" in names
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    scripts = zipfile.ZipFile(wheel).read(entry_points).decode().replace(" ", "")
    assert "evalsite-gate=evalsite_gate.cli:main" in scripts
