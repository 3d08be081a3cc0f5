"""docs/trace-attributes.md names every attribute the convention tables read."""

from pathlib import Path

from traces.ingest import convention_tables as tables

DOC = Path(__file__).resolve().parents[2] / "docs" / "trace-attributes.md"


def _names_read() -> set[str]:
    names = {attribute for attribute, _ in tables.KIND_BY_ATTRIBUTE}
    names |= set(tables.TOOL_MARKERS) | set(tables.LLM_MARKERS)
    for table in (tables.SPAN_FIELDS, tables.TRACE_FIELDS):
        for candidates in table.values():
            names |= set(candidates)
    names |= set(tables.INPUT_ATTRIBUTES) | set(tables.OUTPUT_ATTRIBUTES)
    names |= set(tables.CONTENT_EVENTS)
    names |= {name for pair in tables.COST_PART_ATTRIBUTES for name in pair}
    return names


def test_every_name_read_is_in_the_reference_table():
    text = DOC.read_text()
    missing = sorted(name for name in _names_read() if f"`{name}`" not in text)
    assert missing == []
