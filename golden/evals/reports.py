"""Gate reports in the two shapes CI systems read, written to files: JSON and JUnit XML."""

from __future__ import annotations

import json
from pathlib import Path

# The gate client's writer: a CI job running `manage.py gate` and one running `evalsite-gate`
# get the same JUnit.
from evalsite_gate.reports import report_junit


def gate_report_json(report: dict) -> str:
    return json.dumps(report, indent=2, sort_keys=True, default=str)


def gate_reports_write(report: dict, json_path: str | None, junit_path: str | None) -> None:
    for path, text in (
        (json_path, gate_report_json(report)),
        (junit_path, report_junit(report)),
    ):
        if path:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_text(text, encoding="utf-8")
