"""Loads the demo: three people (one per role), a project of demo traces, and a judge run."""

import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import Group
from django.db import transaction

from accounts.roles import ADMIN, ANNOTATOR, CURATOR
from demo.evals import demo_eval_runs_ensure
from demo.golden import golden_demo_ensure
from demo.scenarios import scenarios
from judges.models import JudgeConfig, Rubric
from judges.services import judge_run_start
from traces.feedback import feedback_record
from traces.ingest.services import ingest_span_tree
from traces.models import Project, Trace

DEMO_PROJECT_SLUG = "demo"
# Three seed rubrics give the queue and the charts something to show on first start.
DEMO_RUBRICS = ("Tool-call decision accuracy", "General trace judge", "Outcome 1-5")
DEMO_USERS = (("admin", ADMIN), ("annie", ANNOTATOR), ("cora", CURATOR))
# With the simulated judge this rubric judges every new trace, so a newcomer's first trace
# is judged within the minute.
DEMO_ONLINE_RUBRIC = "General trace judge"


def demo_password() -> str:
    """One password for the demo logins, made on first run and kept beside the database."""
    path = settings.VAR_DIR / "demo-password"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(12))
        path.chmod(0o600)
    return path.read_text().strip()


def demo_users_ensure() -> list[tuple[str, str]]:
    # Hashed once for the three logins: each hash costs most of a second by design.
    hashed = make_password(demo_password())
    User = get_user_model()
    logins = []
    for username, role in DEMO_USERS:
        user, created = User.objects.get_or_create(username=username)
        if created:
            user.password = hashed
            user.is_staff = user.is_superuser = role == ADMIN
            user.save()
            user.groups.add(Group.objects.get_or_create(name=role)[0])
        logins.append((username, role))
    return logins


@transaction.atomic
def demo_traces_ensure() -> tuple[Project, int]:
    """Ingest the demo scenarios that are not stored yet; returns how many were added."""
    project, _ = Project.objects.get_or_create(
        slug=DEMO_PROJECT_SLUG, defaults={"name": "Demo agents"}
    )
    added = 0
    for payload in scenarios():
        if not Trace.objects.filter(project=project, external_id=payload["trace_id"]).exists():
            ingest_span_tree(project, payload)
            added += 1
    return project, added


def demo_judge_runs_ensure(project: Project) -> list:
    """Judge the demo traces once with each demo rubric; later loads leave them alone."""
    config = JudgeConfig.objects.get(name="default")
    traces = Trace.objects.filter(project=project)
    runs = []
    for name in DEMO_RUBRICS:
        version = Rubric.objects.get(name=name).latest_version()
        if not version.runs.filter(config=config).exists():
            runs.append(judge_run_start(rubric_version=version, config=config, traces=traces))
    return runs


def demo_online_judging_enable() -> Rubric | None:
    """Judge all new traces with the demo's online rubric, when the judge is the simulator."""
    if not settings.JUDGE_SIMULATED:
        return None
    rubric = Rubric.objects.get(name=DEMO_ONLINE_RUBRIC)
    rubric.judge_new_traces, rubric.sample_rate = True, 1.0
    rubric.save(update_fields=["judge_new_traces", "sample_rate"])
    return rubric


def demo_feedback_ensure(project: Project) -> int:
    """End users' thumbs on the demo traces: down where a tool failed, up elsewhere."""
    added = 0
    for index, trace in enumerate(Trace.objects.filter(project=project).order_by("pk")):
        if index % 3 == 2:
            continue  # most people never rate a reply
        failed = trace.error_count > 0
        _, created = feedback_record(
            {
                "trace_id": trace.pk,
                "kind": "thumbs",
                "value": not failed,
                "comment": "It said it was done, but nothing changed." if failed else "",
                "end_user": f"customer-{1000 + index}",
                "key": f"demo-{trace.external_id}",
            }
        )
        added += created
    return added


def demo_load() -> dict:
    logins = demo_users_ensure()
    project, added = demo_traces_ensure()
    if added:
        # Only on the first load: a curator's later choice survives loading the demo again.
        demo_online_judging_enable()
    runs = demo_judge_runs_ensure(project)
    demo_feedback_ensure(project)
    curator = get_user_model().objects.get(username="cora")
    dataset = golden_demo_ensure(user=curator)
    eval_runs = demo_eval_runs_ensure(user=curator)
    return {
        "eval_runs": eval_runs,
        "logins": logins,
        "password": demo_password(),
        "traces_added": added,
        "runs": runs,
        "dataset": dataset,
    }
