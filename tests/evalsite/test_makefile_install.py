"""`make install` installs with uv when it can and with pip when it cannot, so `make run`,
`make lint` and `make test` work on a machine without uv."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _fake(path: Path, name: str, log: Path, exit_code: int = 0) -> None:
    script = path / "bin" / name
    script.write_text(f'#!/bin/sh\necho "{name} $*" >> {log}\nexit {exit_code}\n')
    script.chmod(0o755)


@pytest.fixture
def venv(tmp_path):
    """A venv whose python, pip and uv only write down how they were called."""
    (tmp_path / "venv" / "bin").mkdir(parents=True)
    log = tmp_path / "calls.log"
    for name in ("python", "pip", "uv"):
        _fake(tmp_path / "venv", name, log)
    return tmp_path / "venv", log


def _install(venv: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE")}
    return subprocess.run(
        ["make", "-s", "install", f"VENV={venv}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _calls(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_uv_installs_the_requirements_when_the_venv_has_it(venv):
    path, log = venv
    assert _install(path).returncode == 0
    assert _calls(log) == [f"uv pip install --quiet --python {path}/bin/python -r requirements.txt"]


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_pip_installs_them_when_uv_is_missing_or_fails(venv):
    path, log = venv
    (path / "bin" / "uv").unlink()
    result = _install(path)
    assert result.returncode == 0
    assert _calls(log) == ["pip install --quiet -r requirements.txt"]
    assert "Installing with pip" in result.stdout

    (path / ".installed").unlink()
    log.unlink()
    _fake(path, "uv", log, exit_code=2)
    assert _install(path).returncode == 0
    assert _calls(log)[-1] == "pip install --quiet -r requirements.txt"
