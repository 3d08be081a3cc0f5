"""The gate's report as the server writes it (manage.py gate, golden/evals/reports.py) and as the
evalsite-gate client writes it (clients/evalsite-gate) agree: the client has no dependencies and
the server cannot import clients/, so each keeps its own writer, and this test holds them together.

The server's JUnit adds what only it knows to print (a properties block, each metric's reason as
system-out); every test suite, test case, failure and skip is the same in both."""

import sys
from pathlib import Path
from xml.etree import ElementTree as ET

from golden.evals.reports import gate_report_junit, trial_label
from golden.worlds.reports import fault_kind_lines

CLIENT_SRC = Path(__file__).resolve().parents[2] / "clients" / "evalsite-gate" / "src"
sys.path.insert(0, str(CLIENT_SRC))

from evalsite_gate import reports as client_reports  # noqa: E402

# Only the server writes these.
SERVER_ONLY = {"properties", "system-out"}


def _trial(key, number, trace_id, *, variant="", reasons=(), undecided=()):
    return {
        "example_key": key,
        "variant": variant,
        "trial": number,
        "trace_id": trace_id,
        "reasons": list(reasons),
        "undecided": list(undecided),
    }


def _report(with_trials: bool = True) -> dict:
    report = {
        "decision": "block",
        "summary": "1 metric blocks",
        "baseline": {"name": "base", "agent_version": "1.0"},
        "candidate": {"name": "cand", "agent_version": "1.1"},
        "metrics": [
            {
                "metric": "task_success",
                "blocked": True,
                "rule": "fixed",
                "reason": "task_success fell 0.900 -> 0.500 <over 10%> & more",
                "baseline": 0.9,
                "candidate": 0.5,
            },
            {
                "metric": "cost_usd",
                "blocked": False,
                "rule": None,
                "reason": "not gated",
                "baseline": None,
                "candidate": 1,
            },
            {
                "metric": "parameter_accuracy",
                "blocked": False,
                "rule": "learned",
                "reason": "within the noise band",
                "baseline": 1.0,
                "candidate": 1.0,
            },
        ],
        "fault_kinds": {
            "timeout": {
                "baseline": {"trials": 4, "failed": 1, "undecided": 0},
                "candidate": {"trials": 4, "failed": 3, "undecided": 1},
            },
            "empty_result": {"baseline": None, "candidate": {"trials": 2, "failed": 0}},
        },
    }
    if with_trials:
        report["candidate_trials"] = {
            "passed": 5,
            "failed": [
                _trial("refund", 1, 7, variant="timeout", reasons=["wrong tool", "no answer"]),
                _trial("lookup", 2, 8),
            ],
            "undecided": [
                _trial("cancel", 1, 9, undecided=["judge verdict"]),
                _trial("cancel", 2, 10),
            ],
        }
    return report


def _outline(element: ET.Element):
    """The element with its attributes, text and children, less what only the server writes."""
    return (
        element.tag,
        dict(element.attrib),
        (element.text or "").strip(),
        [_outline(child) for child in element if child.tag not in SERVER_ONLY],
    )


def test_junit_suites_cases_failures_and_skips_agree():
    # Given one gate report with blocked, ungated and passing metrics, failed and undecided trials
    for report in (_report(), _report(with_trials=False)):
        # When the server and the client each write it as JUnit
        server = ET.fromstring(gate_report_junit(report).split("?>", 1)[1])
        client = ET.fromstring(client_reports.report_junit(report).split("?>", 1)[1])

        # Then both say the same to CI
        assert _outline(server) == _outline(client)
        assert len(server.findall("testsuite")) == (2 if "candidate_trials" in report else 1)


def test_junit_server_adds_its_properties_and_reasons():
    server = ET.fromstring(gate_report_junit(_report()).split("?>", 1)[1])

    names = {p.get("name"): p.get("value") for p in server.iter("property")}
    assert names == {"baseline": "base (1.0)", "candidate": "cand (1.1)", "decision": "block"}
    assert [out.text for out in server.iter("system-out")] == [
        row["reason"] for row in _report()["metrics"]
    ]


def test_trial_labels_and_fault_kind_lines_agree():
    report = _report()
    trials = report["candidate_trials"]["failed"] + report["candidate_trials"]["undecided"]

    assert [trial_label(t) for t in trials] == [client_reports.trial_label(t) for t in trials]
    assert trial_label(trials[0]) == "refund@timeout #1 (trace 7)"
    assert fault_kind_lines(report) == client_reports.fault_kind_lines(report)
    assert fault_kind_lines(report)[1].endswith("candidate 0 of 2 failed")
