"""`manage.py gate --baseline RUN --candidate RUN`: pass or block a candidate, for CI."""

from django.core.management.base import BaseCommand, CommandError
from evalsite_gate.reports import fault_kind_lines, trial_label

from core.command_errors import application_errors_as_command_errors
from golden.evals.gate import AUTO, FIXED, LEARNED, GateConfig, gate_evaluate
from golden.evals.metrics import GATED_METRICS
from golden.evals.reports import gate_reports_write
from golden.evals.services import eval_run_lookup
from golden.signals import gate_decided


def _threshold(text: str) -> tuple[str, float]:
    name, _, value = text.partition("=")
    if name not in GATED_METRICS or not value:
        raise CommandError(
            f"--threshold takes METRIC=DROP with METRIC in {', '.join(GATED_METRICS)}"
        )
    return name, float(value)


class Command(BaseCommand):
    help = "Compare a candidate eval run with its baseline; exit 1 when a metric drop blocks it."

    def add_arguments(self, parser):
        parser.add_argument("--baseline", required=True, help="Eval run id or name.")
        parser.add_argument("--candidate", required=True, help="Eval run id or name.")
        parser.add_argument("--mode", choices=[AUTO, FIXED, LEARNED], default=AUTO)
        parser.add_argument("--fixed-drop", type=float, default=0.10, help="Default 0.10 (10%%).")
        parser.add_argument(
            "--threshold",
            action="append",
            default=[],
            type=_threshold,
            help="Per-metric fixed drop, e.g. parameter_accuracy=0.05.",
        )
        parser.add_argument("--k", type=float, default=2.5, help="Noise band in σ (2 to 3).")
        parser.add_argument("--min-noop-runs", type=int, default=3)
        parser.add_argument(
            "--noop-run",
            action="append",
            type=int,
            default=None,
            help="No-op run id to learn the noise from (repeatable).",
        )
        parser.add_argument(
            "--require-people-confirmation",
            action="store_true",
            help="Block on a drop only once people preferred the baseline on the regressed "
            "tasks (pairwise review); until then exit 3, awaiting people.",
        )
        parser.add_argument("--confirmation-share", type=float, default=0.5)
        parser.add_argument(
            "--json", dest="json_path", default=None, help="Write the JSON report to this file."
        )
        parser.add_argument(
            "--junit", dest="junit_path", default=None, help="Write a JUnit XML report here."
        )

    def handle(self, *args, **opts):
        with application_errors_as_command_errors():
            report = gate_evaluate(
                eval_run_lookup(opts["baseline"], field="baseline"),
                eval_run_lookup(opts["candidate"], field="candidate"),
                GateConfig(
                    fixed_drop=opts["fixed_drop"],
                    metric_drops=dict(opts["threshold"]),
                    mode=opts["mode"],
                    sigma_k=opts["k"],
                    min_noop_runs=opts["min_noop_runs"],
                    noop_run_ids=opts["noop_run"],
                    require_people_confirmation=opts["require_people_confirmation"],
                    confirmation_share=opts["confirmation_share"],
                ),
            )
        gate_decided.send(sender=Command, report=report)
        gate_reports_write(report, opts["json_path"], opts["junit_path"])
        for row in report["metrics"]:
            mark = "BLOCK" if row["blocked"] else "ok"
            self.stdout.write(f"  {mark:5} {row['reason']}")
        trials = report["candidate_trials"]
        self.stdout.write(
            f"Candidate trials: {trials['passed']} passed, {len(trials['failed'])} failed, "
            f"{len(trials['undecided'])} undecided"
        )
        for trial in trials["failed"]:
            self.stdout.write(f"  FAIL  {trial_label(trial)}: {'; '.join(trial['reasons'])}")
        for trial in trials["undecided"]:
            self.stdout.write(f"  WAIT  {trial_label(trial)}: {'; '.join(trial['undecided'])}")
        for line in fault_kind_lines(report):
            self.stdout.write(line)
        for warning in report["warnings"]:
            self.stdout.write(self.style.WARNING(f"  warning: {warning}"))
        for label, path in (("JSON report", opts["json_path"]), ("JUnit", opts["junit_path"])):
            if path:
                self.stdout.write(f"{label}: {path}")
        self.stdout.write(report["people"]["text"])
        if report["decision"] == "block":
            self.stderr.write(self.style.ERROR(report["summary"]))
            raise SystemExit(1)
        if report["decision"] == "awaiting_people":
            self.stderr.write(self.style.WARNING(report["summary"]))
            raise SystemExit(3)
        self.stdout.write(self.style.SUCCESS(report["summary"]))
