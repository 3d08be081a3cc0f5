"""Every relative link in the README, CONTRIBUTING and the guides leads somewhere: the file
exists, and a `#fragment` names a heading of it (as GitHub spells heading anchors)."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = sorted(
    [ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "bench" / "RESULTS.md"]
    + list((ROOT / "docs").glob("*.md"))
)
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", flags=re.S | re.M)


def heading_anchors(path: Path) -> set[str]:
    """GitHub's anchors: the heading lowercased, punctuation other than - and _ dropped,
    spaces made hyphens."""
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    anchors = set()
    for heading in re.findall(r"^#{1,6} (.+)$", text, flags=re.M):
        anchors.add(re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-"))
    return anchors


def broken_links(document: Path) -> list[str]:
    text = FENCE.sub("", document.read_text(encoding="utf-8"))
    broken = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue  # http(s), mailto: outside the tree
        file_part, _, fragment = target.partition("#")
        linked = (document.parent / file_part).resolve() if file_part else document
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif fragment and linked.suffix == ".md" and fragment not in heading_anchors(linked):
            broken.append(f"{target}: no such heading")
    return broken


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(document):
    assert broken_links(document) == []


def test_a_missing_heading_or_file_is_reported(tmp_path):
    (tmp_path / "guide.md").write_text("# A guide\n\n## Running at scale\n")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](guide.md#running-at-scale) [gone](guide.md#judging) [none](missing.md)\n"
        "```\n[in a fence](nowhere.md)\n```\n"
    )
    assert broken_links(page) == ["guide.md#judging: no such heading", "missing.md: no such file"]


def test_the_readme_stays_a_front_door():
    # Figures live in bench/RESULTS.md and feature detail in docs/: the README links to them.
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 300
