"""The gate report as CI reads it: console text, JUnit XML, GitHub step-summary markdown."""

from __future__ import annotations

import json
from xml.etree import ElementTree as ET


def _number(value) -> str:
    return "—" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def trial_label(trial: dict) -> str:
    variant = f"@{trial['variant']}" if trial.get("variant") else ""
    return f"{trial['example_key']}{variant} #{trial['trial']} (trace {trial['trace_id']})"


def _fault_side(side: dict | None) -> str:
    if not side:
        return "not met"
    undecided = f" ({side['undecided']} undecided)" if side.get("undecided") else ""
    return f"{side['failed']} of {side['trials']} failed{undecided}"


def fault_kind_lines(report: dict) -> list[str]:
    """Per injected fault kind (tool-world runs): baseline vs candidate trials that passed."""
    return [
        f"  fault {kind:14s} baseline {_fault_side(row['baseline'])}, "
        f"candidate {_fault_side(row['candidate'])}"
        for kind, row in (report.get("fault_kinds") or {}).items()
    ]


def report_text(report: dict) -> str:
    lines = [f"{report['decision'].upper()}: {report['summary']}"]
    for row in report["metrics"]:
        mark = "BLOCK" if row["blocked"] else "ok   "
        lines.append(
            f"  {mark} {row['metric']:28s} {_number(row['baseline']):>7s} -> "
            f"{_number(row['candidate']):>7s}  {row['reason']}"
        )
    lines += fault_kind_lines(report)
    trials = report.get("candidate_trials") or {}
    for trial in trials.get("failed", []):
        lines.append(f"  FAIL  {trial_label(trial)}: {'; '.join(trial['reasons'])}")
    for warning in report.get("warnings", []):
        lines.append(f"  warning: {warning}")
    if report.get("people"):
        lines.append(f"  people: {report['people']['text']}")
    return "\n".join(lines)


def _cell(text) -> str:
    # Table cells: a pipe or a line break would end the cell or the row.
    return str(text).replace("|", "\\|").replace("\n", " ")


def report_markdown(report: dict, run_url: str = "") -> str:
    """A step summary: the decision, one row per metric, the trials that failed."""
    icon = {"block": "❌", "awaiting_people": "⏳"}.get(report["decision"], "✅")
    base, cand = report["baseline"], report["candidate"]
    lines = [
        f"## {icon} evalsite gate: {report['decision']}",
        "",
        _cell(report["summary"]),
        "",
        f"Baseline **{_cell(base['name'])}** ({_cell(base['agent_version'])}) · candidate "
        f"**{_cell(cand['name'])}** ({_cell(cand['agent_version'])})"
        + (f" · [compare]({run_url})" if run_url else ""),
        "",
        "| metric | baseline | candidate | rule | |",
        "|---|---:|---:|---|---|",
    ]
    for row in report["metrics"]:
        verdict = "**blocked**" if row["blocked"] else "ok"
        lines.append(
            f"| {_cell(row['metric'])} | {_number(row['baseline'])} | "
            f"{_number(row['candidate'])} | {_cell(row['rule'] or 'not gated')} | {verdict} |"
        )
    faults = report.get("fault_kinds") or {}
    if faults:
        lines += ["", "| injected fault | baseline | candidate |", "|---|---:|---:|"]
        lines += [
            f"| {_cell(kind)} | {_fault_side(row['baseline'])} | {_fault_side(row['candidate'])} |"
            for kind, row in faults.items()
        ]
    if report.get("people"):
        lines += ["", _cell(report["people"]["text"])]
    failed = (report.get("candidate_trials") or {}).get("failed", [])
    if failed:
        lines += ["", "<details><summary>Trials that failed</summary>", ""]
        lines += [f"- {_cell(trial_label(t))}: {_cell('; '.join(t['reasons']))}" for t in failed]
        lines += ["", "</details>"]
    return "\n".join(lines) + "\n"


def report_junit(report: dict) -> str:
    """One test case per gated metric (a blocking metric is a failure with its reason, each
    reason also its case's output), and one per candidate trial that did not pass."""
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
        ET.SubElement(case, "system-out").text = row["reason"]
    testsuites = ET.Element("testsuites", name="evalsite")
    testsuites.append(suite)
    trials = report.get("candidate_trials")
    if trials is not None:
        testsuites.append(_trials_suite(trials))
    return ET.tostring(testsuites, encoding="unicode", xml_declaration=True)


def _trials_suite(trials: dict) -> ET.Element:
    """A failure says the pass rule's reasons, an undecided trial is skipped with what it waits
    for; passed trials are counted."""
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
