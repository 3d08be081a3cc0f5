"""deploy/Dockerfile installs requirements.txt before it copies the whole tree (so a code change
keeps the installed layer): each package requirements.txt installs from the checkout must be
copied in before that install, or the image does not build."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_package_installed_from_the_checkout_is_copied_in_before_the_install():
    requirements = (ROOT / "requirements.txt").read_text()
    from_checkout = re.findall(r"^-e \./(\S+)$", requirements, flags=re.MULTILINE)
    steps = (ROOT / "deploy/Dockerfile").read_text().splitlines()
    install = next(i for i, step in enumerate(steps) if "-r requirements.txt" in step)
    copied = [step.split()[1] for step in steps[:install] if step.startswith("COPY ")]

    assert from_checkout, "requirements.txt installs no package from the checkout"
    assert [path for path in from_checkout if path not in copied] == []
