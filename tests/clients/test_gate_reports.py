"""The gate report as CI reads it, from the one writer the evalsite-gate client and the server's
`manage.py gate` both use (evalsite_gate.reports): JUnit suites, cases, failures, skips, the
run's properties and each metric's reason; trial labels and fault-kind lines."""

from xml.etree import ElementTree as ET

from evalsite_gate.reports import fault_kind_lines, report_junit, trial_label


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


def _junit(report: dict) -> ET.Element:
    return ET.fromstring(report_junit(report).split("?>", 1)[1])


def test_junit_has_a_case_per_metric_failing_the_blocked_and_skipping_the_ungated():
    gate = _junit(_report(with_trials=False)).find("testsuite")

    assert (gate.get("name"), gate.get("tests"), gate.get("failures"), gate.get("skipped")) == (
        "evalsite.gate",
        "3",
        "1",
        "1",
    )
    cases = {case.get("name"): case for case in gate.iter("testcase")}
    assert list(cases) == ["task_success", "cost_usd", "parameter_accuracy"]
    failure = cases["task_success"].find("failure")
    assert failure.get("type") == "fixed"
    assert failure.get("message") == "task_success fell 0.900 -> 0.500 <over 10%> & more"
    assert cases["cost_usd"].find("skipped").get("message") == "not gated"
    assert cases["parameter_accuracy"].find("failure") is None
    assert cases["parameter_accuracy"].find("skipped") is None


def test_junit_says_the_runs_compared_and_each_metrics_reason():
    gate = _junit(_report()).find("testsuite")

    names = {p.get("name"): p.get("value") for p in gate.iter("property")}
    assert names == {"baseline": "base (1.0)", "candidate": "cand (1.1)", "decision": "block"}
    assert [out.text for out in gate.iter("system-out")] == [
        row["reason"] for row in _report()["metrics"]
    ]


def test_junit_fails_failed_trials_and_skips_undecided_ones():
    suites = _junit(_report()).findall("testsuite")
    assert len(suites) == 2 and len(_junit(_report(with_trials=False)).findall("testsuite")) == 1
    trials = suites[1]

    assert (trials.get("tests"), trials.get("failures"), trials.get("skipped")) == ("9", "2", "2")
    cases = {case.get("name"): case for case in trials.iter("testcase")}
    assert cases["refund@timeout #1 (trace 7)"].find("failure").get("message") == (
        "wrong tool; no answer"
    )
    assert cases["lookup #2 (trace 8)"].find("failure").get("message") == "failed"
    assert cases["cancel #1 (trace 9)"].find("skipped").get("message") == "judge verdict"
    assert cases["cancel #2 (trace 10)"].find("skipped").get("message") == "undecided"


def test_trial_labels_and_fault_kind_lines():
    report = _report()

    assert trial_label(report["candidate_trials"]["failed"][0]) == "refund@timeout #1 (trace 7)"
    assert fault_kind_lines(report) == [
        "  fault timeout        baseline 1 of 4 failed, candidate 3 of 4 failed (1 undecided)",
        "  fault empty_result   baseline not met, candidate 0 of 2 failed",
    ]
