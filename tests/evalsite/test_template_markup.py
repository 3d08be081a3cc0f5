"""Templates keep block elements out of paragraphs: a browser closes a <p> at the first <form>,
<div> or <table> inside it, so what follows leaves the paragraph and its styling."""

import re
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
# The elements whose start tag ends an open paragraph (HTML's "p" closing rule).
CLOSES_A_PARAGRAPH = (
    "address|article|aside|blockquote|details|div|dl|fieldset|figcaption|figure|footer|form|"
    "h[1-6]|header|hgroup|hr|main|menu|nav|ol|p|pre|section|table|ul"
)
PARAGRAPH = re.compile(r"<p\b[^>]*>(.*?)</p>", re.DOTALL)
BLOCK = re.compile(rf"<({CLOSES_A_PARAGRAPH})\b")


def test_no_paragraph_holds_an_element_that_closes_it():
    found = []
    for path in sorted(TEMPLATES.rglob("*.html")):
        text = path.read_text()
        for paragraph in PARAGRAPH.finditer(text):
            block = BLOCK.search(paragraph.group(1))
            if block:
                line = text.count("\n", 0, paragraph.start()) + 1
                found.append(f"{path.relative_to(TEMPLATES)}:{line}: <{block.group(1)}>")
    assert not found, "a <p> holds what closes it:\n" + "\n".join(found)
