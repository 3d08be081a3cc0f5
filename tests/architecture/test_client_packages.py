"""The packages under clients/ install without the server: they import no app of the project
and no Django, so the checks the server scores with run in a developer's own tests as they are."""

from pathlib import Path

import pytest

from tests.architecture.test_import_rules import FLOORS, reaches_in_source

ROOT = Path(__file__).resolve().parents[2]
SERVER_ONLY = {*FLOORS, "django", "rest_framework", "celery", "tests"}


@pytest.mark.parametrize("client", sorted(p.name for p in (ROOT / "clients").iterdir()))
def test_a_client_package_reaches_no_app_and_no_django(client):
    reaches = []
    for path in sorted((ROOT / "clients" / client / "src").rglob("*.py")):
        module = str(path.relative_to(ROOT))
        reaches += reaches_in_source(path.read_text(encoding="utf-8"), module)

    assert [str(r) for r in reaches if r.target in SERVER_ONLY] == []
