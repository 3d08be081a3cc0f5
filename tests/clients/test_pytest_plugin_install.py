"""evalsite-pytest and evalsite-checks install on their own, without the server: each wheel
builds from the checkout, the plugin registers under pytest11, and the two import from an
install target that holds nothing else of the project."""

import os
import subprocess
import sys
import zipfile
from pathlib import Path

CLIENTS = Path(__file__).resolve().parents[2] / "clients"


def _wheel(folder: Path, into: Path) -> Path:
    # The build backend comes from the environment: the test reaches no package index.
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation"]
        + ["--wheel-dir", str(into), str(folder)],
        check=True,
        capture_output=True,
    )
    name = folder.name.replace("-", "_")
    (wheel,) = into.glob(f"{name}-*.whl")
    return wheel


def test_the_plugin_wheel_registers_under_pytest11(tmp_path):
    wheel = _wheel(CLIENTS / "evalsite-pytest", tmp_path)

    archive = zipfile.ZipFile(wheel)
    names = archive.namelist()
    entry_points = archive.read(next(n for n in names if n.endswith("entry_points.txt")))
    entry_points = entry_points.decode().replace(" ", "")
    metadata = archive.read(next(n for n in names if n.endswith("METADATA"))).decode()
    assert "[pytest11]\nevalsite=evalsite_pytest.plugin" in entry_points
    assert "Requires-Dist: evalsite-checks" in metadata
    assert {"evalsite_pytest/plugin.py", "evalsite_pytest/world.py"} <= set(names)


def test_both_install_into_a_target_and_import_from_it_alone(tmp_path):
    wheels = [
        _wheel(CLIENTS / name, tmp_path / "wheels")
        for name in ("evalsite-checks", "evalsite-pytest")
    ]
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target)]
        + [str(w) for w in wheels],
        check=True,
        capture_output=True,
    )
    # Outside the checkout, with only the target ahead of the environment's packages.
    env = {**os.environ, "PYTHONPATH": str(target)}
    probe = (
        "import evalsite_checks, evalsite_pytest.plugin, sys;"
        "print(evalsite_checks.__file__);"
        "print(any(m == 'django' or m.startswith('django.') for m in sys.modules))"
    )
    shown = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()

    assert shown == [str(target / "evalsite_checks" / "__init__.py"), "False"]
