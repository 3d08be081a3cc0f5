"""Gate reports in the two shapes CI systems read: JSON and JUnit XML."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree as ET


def gate_report_json(report: dict) -> str:
    return json.dumps(report, indent=2, sort_keys=True, default=str)


def gate_report_junit(report: dict) -> str:
    """One test case per gated metric; a blocking metric is a failure with its reason."""
    rows = report["metrics"]
    suite = ET.Element(
        "testsuite",
        name="evalsite.gate",
        tests=str(len(rows)),
        failures=str(sum(1 for r in rows if r["blocked"])),
        errors="0",
        skipped=str(sum(1 for r in rows if r["rule"] is None)),
    )
    base, cand = report["baseline"], report["candidate"]
    props = ET.SubElement(suite, "properties")
    for name, value in (
        ("baseline", f"{base['name']} ({base['agent_version']})"),
        ("candidate", f"{cand['name']} ({cand['agent_version']})"),
        ("decision", report["decision"]),
    ):
        ET.SubElement(props, "property", name=name, value=str(value))
    for row in rows:
        case = ET.SubElement(suite, "testcase", classname="evalsite.gate", name=row["metric"])
        if row["rule"] is None:
            ET.SubElement(case, "skipped", message=row["reason"])
        elif row["blocked"]:
            failure = ET.SubElement(case, "failure", message=row["reason"], type=row["rule"])
            failure.text = json.dumps(row, default=str)
        out = ET.SubElement(case, "system-out")
        out.text = row["reason"]
    testsuites = ET.Element("testsuites", name="evalsite")
    testsuites.append(suite)
    return ET.tostring(testsuites, encoding="unicode", xml_declaration=True)


def gate_reports_write(report: dict, json_path: str | None, junit_path: str | None) -> None:
    for path, text in (
        (json_path, gate_report_json(report)),
        (junit_path, gate_report_junit(report)),
    ):
        if path:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_text(text, encoding="utf-8")
