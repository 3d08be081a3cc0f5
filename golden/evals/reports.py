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
    suite = _suite(
        "evalsite.gate",
        tests=len(rows),
        failures=sum(1 for r in rows if r["blocked"]),
        skipped=sum(1 for r in rows if r["rule"] is None),
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
    trials = report.get("candidate_trials")
    if trials is not None:
        testsuites.append(_trials_suite(trials))
    return ET.tostring(testsuites, encoding="unicode", xml_declaration=True)


def trial_label(trial: dict) -> str:
    variant = f"@{trial['variant']}" if trial.get("variant") else ""
    return f"{trial['example_key']}{variant} #{trial['trial']} (trace {trial['trace_id']})"


def _trials_suite(trials: dict) -> ET.Element:
    """One test case per candidate trial that did not pass: a failure says the pass rule's
    reasons, an undecided trial is skipped with what it waits for. Passed trials are counted."""
    failed, undecided = trials["failed"], trials["undecided"]
    suite = _suite(
        "evalsite.trials",
        tests=trials["passed"] + len(failed) + len(undecided),
        failures=len(failed),
        skipped=len(undecided),
    )
    for trial in failed:
        message = "; ".join(trial["reasons"]) or "failed"
        case = _trial_case(suite, trial)
        ET.SubElement(case, "failure", message=message, type="pass_rule").text = message
    for trial in undecided:
        message = "; ".join(trial["undecided"]) or "undecided"
        ET.SubElement(_trial_case(suite, trial), "skipped", message=message)
    return suite


def _trial_case(suite: ET.Element, trial: dict) -> ET.Element:
    return ET.SubElement(suite, "testcase", classname="evalsite.trials", name=trial_label(trial))


def _suite(name: str, *, tests: int, failures: int, skipped: int) -> ET.Element:
    return ET.Element(
        "testsuite",
        name=name,
        tests=str(tests),
        failures=str(failures),
        errors="0",
        skipped=str(skipped),
    )


def gate_reports_write(report: dict, json_path: str | None, junit_path: str | None) -> None:
    for path, text in (
        (json_path, gate_report_json(report)),
        (junit_path, gate_report_junit(report)),
    ):
        if path:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            Path(path).write_text(text, encoding="utf-8")
