"""`evalsite-gate`: create an eval run, tag the agent's traces, wait for scoring, gate.

start   create the run; print the variables that tag the agent's traces (and append them to
        $GITHUB_ENV); optionally write the tasks to run, k trials each, as JSONL; with
        --tool-worlds, each golden example's tool world (and each fault variant, a task of its
        own) is served for the run and every line carries its trial's endpoint and token
finish  close the run's tool worlds, judge the run's outcomes and wait, score it, gate it
        against a baseline; print the report, write JSON/JUnit and the GitHub step summary;
        exit 1 on a block, 3 while a drop waits for people's confirmation
        (--require-people-confirmation)
run     start, then the agent command (tagging variables in its environment), then finish;
        with --relay the agent's OTLP exporter sends through a local relay that tags the run
relay   an OTLP/HTTP endpoint on this machine that tags every trace with the run and forwards
        it to evalsite with the token, for exporters that can only be given a URL
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

from evalsite_gate.api import Evalsite, EvalsiteError
from evalsite_gate.relay import OtlpRelay
from evalsite_gate.reports import report_junit, report_markdown, report_text

PASS, BLOCK, FAILURE, AWAITING_PEOPLE = 0, 1, 2, 3
RUN_TAG, EXAMPLE_TAG, TRIAL_TAG = "evalsite.eval_run", "evalsite.example_key", "evalsite.trial"
VARIANT_TAG = "evalsite.variant"


def _say(*parts) -> None:
    print(*parts, file=sys.stderr, flush=True)


def _server_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", default=os.environ.get("EVALSITE_URL"), help="$EVALSITE_URL")
    parser.add_argument(
        "--token", default=os.environ.get("EVALSITE_TOKEN"), help="$EVALSITE_TOKEN (curator)"
    )


def _start_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--name", required=True, help="Eval run name, unique (e.g. ci-$RUN_ID).")
    parser.add_argument("--agent-version", required=True)
    parser.add_argument("--agent-name", default="")
    parser.add_argument("--dataset-version", required=True, help="Dataset version name.")
    parser.add_argument("--trials", type=int, default=1, help="Trials per task (k).")
    parser.add_argument("--noop", action="store_true", help="A no-op run that teaches noise.")
    parser.add_argument("--tasks-file", help="Write the tasks to run, one trial a line (JSONL).")
    parser.add_argument(
        "--tool-worlds",
        action="store_true",
        help="Serve each example's tool world (HTTP and MCP) to its trials; needs --tasks-file, "
        "whose lines then carry each trial's endpoints and token (keep the file private).",
    )


def _finish_options(parser: argparse.ArgumentParser, *, with_run: bool) -> None:
    if with_run:
        parser.add_argument("--run", required=True, help="The candidate run, name or id.")
    parser.add_argument(
        "--baseline",
        required=True,
        help="Baseline run name or id, or `latest`: the newest "
        "other scored run of the same agent over the same dataset version.",
    )
    parser.add_argument("--mode", choices=["auto", "fixed", "learned"], default="auto")
    parser.add_argument("--fixed-drop", type=float, default=0.10)
    parser.add_argument("--k", type=float, default=2.5, help="σ multiplier, learned mode.")
    parser.add_argument(
        "--require-people-confirmation",
        action="store_true",
        help="Block on a drop only once people, comparing the regressed tasks pairwise, "
        "preferred the baseline; until then exit 3 (awaiting people).",
    )
    parser.add_argument(
        "--confirmation-share",
        type=float,
        default=0.5,
        help="Share of the regressed tasks people must prefer the baseline on.",
    )
    parser.add_argument("--judge-config", default="default")
    parser.add_argument("--no-judge", action="store_true", help="Score without judging first.")
    parser.add_argument("--no-llm", action="store_true", help="Deterministic scoring only.")
    parser.add_argument("--matcher", default="auto")
    parser.add_argument(
        "--traces-timeout",
        type=float,
        default=300,
        help="Seconds to wait for the run's traces to arrive and settle before scoring.",
    )
    parser.add_argument("--timeout", type=float, default=1800, help="Seconds to wait for judging.")
    parser.add_argument("--poll-seconds", type=float, default=5)
    parser.add_argument("--json", dest="json_path", help="Write the report as JSON.")
    parser.add_argument("--junit", dest="junit_path", help="Write the report as JUnit XML.")
    parser.add_argument(
        "--summary", help="Write markdown here; default $GITHUB_STEP_SUMMARY when set."
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="evalsite-gate", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    start = commands.add_parser("start", help="Create the eval run; print the tags to set.")
    _server_options(start)
    _start_options(start)
    finish = commands.add_parser("finish", help="Judge, score and gate a run.")
    _server_options(finish)
    _finish_options(finish, with_run=True)
    run = commands.add_parser("run", help="start, the agent command, finish.")
    _server_options(run)
    _start_options(run)
    _finish_options(run, with_run=False)
    run.add_argument(
        "--relay",
        action="store_true",
        help="Point the agent's OTLP exporter (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) at a local "
        "relay that tags every trace with the run and adds the token.",
    )
    run.add_argument("agent_command", nargs=argparse.REMAINDER, help="-- COMMAND [ARGS]")
    relay = commands.add_parser("relay", help="Serve a run-tagging OTLP endpoint until stopped.")
    _server_options(relay)
    relay.add_argument("--run", required=True, help="The eval run name every trace is tagged with.")
    relay.add_argument("--host", default="127.0.0.1")
    relay.add_argument("--port", type=int, default=4318, help="4318 is OTLP/HTTP's own port.")
    return parser


def tagging_env(run_name: str) -> dict[str, str]:
    """Variables that tag the agent's traces: evalsite's own, and OpenTelemetry's resource."""
    existing = os.environ.get("OTEL_RESOURCE_ATTRIBUTES", "")
    resource = f"{RUN_TAG}={run_name}"
    if existing and resource not in existing.split(","):
        resource = f"{existing},{resource}"
    return {"EVALSITE_EVAL_RUN": run_name, "OTEL_RESOURCE_ATTRIBUTES": resource}


def relay_env(endpoint: str) -> dict[str, str]:
    """Variables that send a stock OpenTelemetry exporter's traces to the relay."""
    return {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": endpoint}


def command_relay(args) -> int:
    relay = OtlpRelay(args.url, args.token, {RUN_TAG: args.run}, host=args.host, port=args.port)
    for key, value in relay_env(relay.endpoint).items():
        print(f"{key}={value}", flush=True)
    _say(f"Relaying OTLP traces to {relay.target}, tagged {RUN_TAG}={args.run}. Ctrl-C stops.")
    try:
        relay.server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        relay.server.server_close()
    _say(f"{relay.forwarded} export request(s) relayed.")
    return PASS


def _tasks_write(site: Evalsite, dataset_version: str, run_name: str, trials: int, path: str):
    versions = site.request("GET", "/api/golden/versions/")
    version = next((v for v in versions if v.get("name") == dataset_version), None)
    if version is None:
        raise EvalsiteError(f"No dataset version {dataset_version!r}.", 404)
    examples = []
    for part in ("open", "held_out"):
        try:
            text = site.request_text(f"/api/golden/versions/{version['id']}/export/?part={part}")
        except EvalsiteError as exc:
            if part == "held_out" and exc.status == 403:
                continue  # only curators run the held-out part
            raise
        examples += [json.loads(line) for line in text.splitlines() if line.strip()]
    with open(path, "w", encoding="utf-8") as out:
        for example in examples:
            for trial in range(trials):
                tags = {RUN_TAG: run_name, EXAMPLE_TAG: example["key"], TRIAL_TAG: trial}
                line = {
                    "example_key": example["key"],
                    "trial": trial,
                    "task": example.get("task", ""),
                    "context": example.get("context") or {},
                    "attributes": tags,
                }
                out.write(json.dumps(line) + "\n")
    return len(examples)


def _world_tasks_write(site: Evalsite, run: dict, path: str) -> int:
    """One line per trial, from the server's handout: its task, tags, and tool world."""
    trials = site.tool_worlds_start(run["id"])
    with open(path, "w", encoding="utf-8") as out:
        os.chmod(path, 0o600)  # the lines carry the trials' tokens
        for trial in trials:
            line = {
                "trial_id": trial["trial_id"],
                "example_key": trial["example_key"],
                "variant": trial["variant"],
                "trial": trial["trial"],
                "task": trial["task"],
                "context": trial["context"],
                "fault_kinds": trial["fault_kinds"],
                "tool_world": trial["tool_world"],
                "attributes": trial["tags"],
            }
            out.write(json.dumps(line) + "\n")
    return len(trials)


def command_start(site: Evalsite, args) -> dict:
    if args.tool_worlds and not args.tasks_file:
        raise EvalsiteError(
            "--tool-worlds hands each trial its endpoint through --tasks-file; give one.",
            fields={"tasks_file": ["required with --tool-worlds"]},
        )
    fields = {
        "name": args.name,
        "agent_version": args.agent_version,
        "dataset_version": args.dataset_version,
        "trials_per_task": args.trials,
        "is_noop": args.noop,
    }
    if args.agent_name:
        fields["agent_name"] = args.agent_name
    run = site.eval_run_create(**fields)
    _say(
        f"Eval run {run['name']} (id {run['id']}) created: {run['agent_name'] or 'agent'} "
        f"{run['agent_version']} over {run['dataset_version']}, {run['trials_per_task']} "
        "trial(s) per task."
    )
    env = tagging_env(run["name"])
    for key, value in env.items():
        print(f"{key}={value}")
    github_env = os.environ.get("GITHUB_ENV")
    if github_env:
        with open(github_env, "a", encoding="utf-8") as out:
            out.writelines(f"{key}={value}\n" for key, value in env.items())
    _say(
        f"Every trace the agent sends carries {RUN_TAG}={run['name']} (the OTel resource above, "
        f"or span-tree `context`), plus {EXAMPLE_TAG}=<golden example key> and "
        f"{TRIAL_TAG}=<0..{run['trials_per_task'] - 1}>."
    )
    if args.tool_worlds:
        count = _world_tasks_write(site, run, args.tasks_file)
        _say(
            f"{count} trial(s), fault variants included, written to {args.tasks_file}; each "
            f"line has its tool world (tools_url, call_url, mcp_url, token) and its tags "
            f"({VARIANT_TAG} for a variant)."
        )
    elif args.tasks_file:
        count = _tasks_write(
            site, args.dataset_version, run["name"], run["trials_per_task"], args.tasks_file
        )
        _say(f"{count} task(s) x {run['trials_per_task']} trial(s) written to {args.tasks_file}.")
    return run


def _progress_bar(done: int, total: int, width: int = 30) -> str:
    filled = int(width * done / total) if total else width
    return f"[{'#' * filled}{'.' * (width - filled)}] {done}/{total} judge passes"


def _traces_wait(site: Evalsite, run: dict, args) -> None:
    """Wait until every expected trace arrived and settled; a run scored earlier would be
    graded on half its traces. Past the timeout: stop with what is missing, or, when every
    trace that came is complete, score what came (the rest count as missing trials)."""
    deadline = time.monotonic() + args.traces_timeout
    shown = None
    while True:
        state = site.eval_run_traces(run["id"])
        expected, received, complete = state["expected"], state["received"], state["complete"]
        if (received, complete) != shown:
            _say(f"Traces of {run['name']}: {received}/{expected} arrived, {complete} complete.")
            shown = (received, complete)
        if received >= expected and complete == received:
            return
        if time.monotonic() > deadline:
            break
        time.sleep(args.poll_seconds)
    if complete < received:
        raise EvalsiteError(
            f"{received - complete} of {run['name']}'s traces were still receiving spans after "
            f"{args.traces_timeout:.0f} s, so the run was not scored. A trace is complete once "
            "its root span ended and no span came for the server's TRACE_SETTLE_SECONDS; check "
            "that the agent flushes its exporter at exit, or raise --traces-timeout."
        )
    _say(
        f"Only {received} of {expected} expected traces arrived within "
        f"{args.traces_timeout:.0f} s; scoring them, the rest count as missing trials. Are "
        "they tagged evalsite.eval_run, evalsite.example_key and evalsite.trial?"
    )


def _judging_wait(site: Evalsite, run_id: int, args) -> None:
    try:
        judge_runs = site.eval_run_judge(run_id, args.judge_config)
    except EvalsiteError as exc:
        if exc.status == 400 and "run" in exc.fields:
            _say(f"Nothing to judge: {exc}")  # no example names an outcome rubric
            return
        raise
    deadline = time.monotonic() + args.timeout
    while True:
        states = [site.judge_run(pk) for pk in judge_runs]
        total = sum(s["progress"]["passes"]["total"] for s in states)
        done = sum(s["progress"]["finished_passes"] for s in states)
        _say(_progress_bar(done, total))
        if all(s["status"] in ("done", "cancelled") for s in states) or (total and done >= total):
            return
        if time.monotonic() > deadline:
            raise EvalsiteError(f"Judging did not finish within {args.timeout:.0f} s.")
        time.sleep(args.poll_seconds)


def _baseline(site: Evalsite, candidate: dict, wanted: str) -> str:
    if wanted != "latest":
        return wanted
    runs = site.eval_runs(
        limit=2,
        agent_name=candidate["agent_name"],
        dataset_version=candidate["dataset_version"],
        is_noop="false",
        scored="true",
    )
    runs = [r for r in runs if r["id"] != candidate["id"]]
    if not runs:
        raise EvalsiteError("No earlier scored run of this agent and dataset to compare with.")
    return str(runs[0]["id"])


def command_finish(site: Evalsite, args, run_name: str) -> int:
    run = site.eval_run(run_name)
    _traces_wait(site, run, args)
    if run.get("tool_worlds_started_at"):
        closed = site.tool_worlds_finish(run["id"])
        _say(f"Tool worlds of {closed} trial(s) closed.")
    if not args.no_judge:
        _judging_wait(site, run["id"], args)
    _say(f"Scoring {run['name']} ...")
    site.eval_run_score(run["id"], use_llm=not args.no_llm, matcher=args.matcher)
    baseline = _baseline(site, run, args.baseline)
    report = site.gate(
        baseline=baseline,
        candidate=str(run["id"]),
        mode=args.mode,
        fixed_drop=args.fixed_drop,
        k=args.k,
        require_people_confirmation=args.require_people_confirmation,
        confirmation_share=args.confirmation_share,
    )
    print(report_text(report))
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(report, indent=2), encoding="utf-8")
    if args.junit_path:
        Path(args.junit_path).write_text(report_junit(report), encoding="utf-8")
    summary = args.summary or os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as out:
            out.write(report_markdown(report))
    return {"block": BLOCK, "awaiting_people": AWAITING_PEOPLE}.get(report["decision"], PASS)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if not args.url or not args.token:
        _say("evalsite-gate: set --url and --token (or $EVALSITE_URL and $EVALSITE_TOKEN).")
        return FAILURE
    try:
        site = Evalsite(args.url, args.token)
        if args.command == "relay":
            return command_relay(args)
        if args.command == "start":
            command_start(site, args)
            return PASS
        if args.command == "finish":
            return command_finish(site, args, args.run)
        command = args.agent_command
        command = command[1:] if command[:1] == ["--"] else command
        if not command:
            _say("evalsite-gate run: give the agent command after --.")
            return FAILURE
        run = command_start(site, args)
        env = {**os.environ, **tagging_env(run["name"])}
        relay = None
        if args.relay:
            relay = OtlpRelay(args.url, args.token, {RUN_TAG: run["name"]}).start()
            env.update(relay_env(relay.endpoint))
            _say(f"The agent's OTLP exporter sends through {relay.endpoint}.")
        _say(f"Running: {shlex.join(command)}")
        try:
            agent = subprocess.run(command, env=env)
        finally:
            if relay is not None:
                relay.stop()
        if agent.returncode != 0:
            _say(f"The agent command failed (exit {agent.returncode}); gating what it sent.")
        return command_finish(site, args, str(run["id"]))
    except EvalsiteError as exc:
        others = {k: v for k, v in exc.fields.items() if not str(exc).startswith(f"{k}:")}
        named = "; ".join(f"{k}: {', '.join(map(str, v))}" for k, v in others.items())
        _say(f"evalsite-gate: {exc}" + (f" ({named})" if named else ""))
        return FAILURE


if __name__ == "__main__":
    sys.exit(main())
