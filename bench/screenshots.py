"""Screenshot every page at 1400x900 in headless Chromium, on a fresh install or lots of data.

Sets up its own database and var folder, loads the demo (optionally on top of `--fill N`
traces of history with their sessions, verdicts, review items, golden examples and topics,
written by bench/screenshot_data.py, which needs PostgreSQL), starts the whole stack with
`manage.py serve --demo` (web, worker, simulated judge, the demo agent), waits for the demo's
judging and the demo agent's tool-world runs to finish, then visits each page as the admin and
saves two PNGs per page: the 1400x900 view (`NAME.png`) and the whole page (`NAME.full.png`).
Prints each page's status, console errors and the figures of the run.

    .venv/bin/python bench/screenshots.py [--out var/screenshots] [--port 8160]
    .venv/bin/python bench/screenshots.py --fill 20000 --database-url postgres://.../evalsite_x
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from benchdb import database_ensure  # noqa: E402

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
VIEWPORT = {"width": 1400, "height": 900}
# The demo agent's tool-world runs (`serve --demo`), as it prints their comparison.
DEMO_WORLDS_COMPARE = re.compile(r"Demo agent: eval runs .*? compare them at https?://[^/]+(\S+)")
# Pages with fixed addresses; pages of one object are found by following the first link.
FIXED_PAGES = [
    ("overview", "/"),
    ("agent-dashboard", "/insights/agent/"),
    ("topics", "/insights/topics/"),
    ("judging-health", "/insights/judging/"),
    ("traces", "/traces/"),
    ("traces-delete", "/traces/delete/?status=error"),
    ("traces-delete-all", "/traces/delete/"),
    ("trace-deletions", "/traces/deletions/"),
    ("sessions", "/traces/sessions/"),
    ("projects", "/traces/projects/"),
    ("rubrics", "/judges/rubrics/"),
    ("rubric-new", "/judges/rubrics/new/"),
    ("judge-configs", "/judges/configs/"),
    ("tools", "/judges/tools/"),
    ("task-types", "/judges/adarubric/task-types/"),
    ("judge-runs", "/judges/runs/"),
    ("judge-run-new", "/judges/runs/new/"),
    ("review-queues", "/reviews/"),
    ("audit-log", "/reviews/audit/"),
    ("golden", "/golden/"),
    ("golden-new", "/golden/examples/new/"),
    ("golden-promote", "/golden/promote/"),
    ("golden-held-out", "/golden/held-out/"),
    ("golden-health", "/golden/health/"),
    ("golden-versions", "/golden/versions/"),
    ("golden-import", "/golden/import/"),
    ("golden-delete", "/golden/examples/delete/?held_out=yes"),
    ("eval-runs", "/golden/evals/"),
    ("eval-compare-empty", "/golden/evals/compare/"),
    ("calibration", "/insights/calibration/"),
    ("held-out-report", "/insights/held-out/"),
    ("api-tokens", "/accounts/tokens/"),
    ("api-docs", "/api/docs/"),
    ("admin", "/admin/"),
    ("not-found", "/traces/999999999/"),
]
# (name, list page, link pattern): the first matching link on the list page is shot too.
FOLLOWED_PAGES = [
    ("trace", "/traces/", r"^/traces/\d+/$"),
    ("session", "/traces/sessions/", r"^/traces/sessions/\d+/$"),
    ("rubric", "/judges/rubrics/", r"^/judges/rubrics/\d+/$"),
    ("rubric-edit", "/judges/rubrics/", r"^/judges/rubrics/\d+/$", "edit/"),
    ("judge-run", "/judges/runs/", r"^/judges/runs/\d+/$"),
    ("review-queue", "/reviews/", r"^/reviews/queues/\d+/$"),
    ("golden-example", "/golden/", r"^/golden/examples/\d+/$"),
    ("golden-example-delete", "/golden/", r"^/golden/examples/\d+/$", "delete/"),
    ("trace-delete", "/traces/", r"^/traces/\d+/$", "delete/"),
    ("golden-version", "/golden/versions/", r"^/golden/versions/\d+/$"),
    ("calibration-detail", "/insights/calibration/", r"^/insights/calibration/\d+/$"),
]


# A reused database keeps its demo users; the new var folder has a new password for them.
_PASSWORD_RESET = (
    "from django.contrib.auth import get_user_model; u = get_user_model().objects.get("
    "username='admin'); u.set_password('{password}'); u.save()"
)


def _run(args: list[str], env: dict) -> None:
    subprocess.run([sys.executable, *args], cwd=ROOT, env=env, check=True)


def _database_reset(url: str) -> None:
    import psycopg

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    database_ensure(url)


def _pending_judgments(env: dict) -> int:
    code = (
        "from judges.models import Judgment, JudgmentStatus;"
        "print(Judgment.objects.filter(status=JudgmentStatus.PENDING).count())"
    )
    out = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return int(out.stdout.strip().splitlines()[-1])


def _wait_for(url: str, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            urllib.request.urlopen(url, timeout=2)  # noqa: S310 - our own loopback server
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def _shoot(page, name: str, path: str, out: Path, report: list) -> None:
    errors: list[str] = []

    def on_console(msg):
        if msg.type == "error":
            errors.append(msg.text)

    page.on("console", on_console)
    started = time.monotonic()
    response = page.goto(path, wait_until="networkidle")
    ms = (time.monotonic() - started) * 1000
    # Charts draw after load; give plotly its frame before the picture.
    page.wait_for_timeout(300)
    page.screenshot(path=str(out / f"{name}.png"))
    # What lies below the fold too: charts and long tables.
    page.screenshot(path=str(out / f"{name}.full.png"), full_page=True)
    page.remove_listener("console", on_console)
    report.append((name, path, response.status if response else 0, ms, errors))


def screenshots_take(base_url: str, password: str, out: Path, extra_pages=()) -> list:
    from playwright.sync_api import sync_playwright

    report: list = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_ARGS
        )
        context = browser.new_context(base_url=base_url, viewport=VIEWPORT)
        page = context.new_page()
        page.goto("/login/")
        page.screenshot(path=str(out / "login.png"))
        page.fill("#id_username", "admin")
        page.fill("#id_password", password)
        page.click("button[type=submit]")
        page.wait_for_url(lambda url: "/login/" not in url)
        for name, path in [*FIXED_PAGES, *extra_pages]:
            _shoot(page, name, path, out, report)
        for name, listing, pattern, *suffix in FOLLOWED_PAGES:
            page.goto(listing)
            hrefs = page.eval_on_selector_all(
                "a[href]", "els => els.map(e => e.getAttribute('href'))"
            )
            found = next((h for h in hrefs if re.match(pattern, h.split("?")[0])), None)
            if found is None:
                report.append((name, listing, 0, 0.0, ["no link to follow"]))
                continue
            _shoot(page, name, found.split("?")[0] + "".join(suffix), out, report)
        # The review item page: claim the next item of the first queue.
        page.goto("/reviews/")
        start = page.locator("form[action$='/claim/'] button").first
        if start.count():
            start.click()
            page.wait_for_load_state("networkidle")
            _shoot(page, "review-item", page.url.replace(base_url, ""), out, report)
        browser.close()
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "var" / "screenshots"))
    parser.add_argument("--port", type=int, default=8160, help="web; the judge gets port+1")
    parser.add_argument("--fill", type=int, default=0, help="Traces of history to add first.")
    parser.add_argument(
        "--database-url", default="", help="PostgreSQL database to recreate (needed by --fill)"
    )
    parser.add_argument("--judge-wait", type=float, default=180, help="Seconds to wait at most.")
    parser.add_argument(
        "--reuse", action="store_true", help="Keep the database as an earlier run left it."
    )
    args = parser.parse_args()
    if args.fill and not args.database_url:
        parser.error("--fill needs --database-url (a PostgreSQL database to recreate)")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    var_dir = tempfile.mkdtemp(prefix="evalsite-shots-")
    env = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "REDIS_URL")}
    env.update(
        EVALSITE_VAR_DIR=var_dir,
        DJANGO_SETTINGS_MODULE="evalsite.settings",
        SIMULATED_JUDGE_PORT=str(args.port + 1),
        LOG_LEVEL="WARNING",
        INSIGHTS_REFRESH_SECONDS="5",
    )
    env.pop("DATABASE_URL", None)
    if args.reuse and not args.database_url:
        parser.error("--reuse needs --database-url")
    if args.database_url:
        if not args.reuse:
            _database_reset(args.database_url)
        env["DATABASE_URL"] = args.database_url
    started = time.monotonic()
    _run(["manage.py", "migrate", "--noinput", "-v", "0"], env)
    if args.fill and not args.reuse:
        fill = f"from screenshot_data import history_fill; history_fill({args.fill})"
        _run(
            [
                "-c",
                f"import sys; sys.path.insert(0, 'bench'); import django; django.setup(); {fill}",
            ],
            env,
        )
    _run(["manage.py", "load_demo"], env)
    password = (Path(var_dir) / "demo-password").read_text().strip()
    if args.reuse:
        _run(["manage.py", "shell", "-c", _PASSWORD_RESET.format(password=password)], env)
    server_log = Path(var_dir) / "serve.log"
    server = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--demo", "--addr", f"127.0.0.1:{args.port}",
         "--concurrency", "4"],
        cwd=ROOT, env=env, stdout=server_log.open("w"), stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        base_url = f"http://127.0.0.1:{args.port}"
        try:
            _wait_for(base_url + "/login/", 180)
        except OSError:
            print(server_log.read_text()[-3000:], file=sys.stderr)
            raise
        deadline = time.monotonic() + args.judge_wait
        while time.monotonic() < deadline and (
            _pending_judgments(env) or not DEMO_WORLDS_COMPARE.search(server_log.read_text())
        ):
            time.sleep(2)
        ready = time.monotonic() - started
        compare = DEMO_WORLDS_COMPARE.search(server_log.read_text())
        extra_pages = [("eval-compare-worlds", compare.group(1))] if compare else []
        report = screenshots_take(base_url, password, out, extra_pages)
    finally:
        server.terminate()
        server.wait(timeout=30)
    for name, path, status, ms, errors in report:
        flag = "" if status and status < 400 else "  <-- status"
        print(f"{name:22} {status:3} {ms:7.0f} ms  {path}{flag}")
        for error in errors:
            print(f"{'':22} console: {error}")
    bad = [r for r in report if r[2] >= 500 or r[2] == 0 or r[4]]
    print(
        f"{len(report)} pages shot into {out} at 1400x900; stack ready in {ready:.0f} s "
        f"(fill {args.fill}); {len(bad)} with a server error or console error"
    )


if __name__ == "__main__":
    main()
