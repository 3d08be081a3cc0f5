"""A world with one row behind every path parameter of the URL conf, for route walks."""

import re
from datetime import timedelta

from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone

from accounts.models import ApiToken
from golden.models import DatasetVersion, EvalRun, EvalTrial, GoldenExample
from golden.services import dataset_version_create
from insights.models import Topic, TopicBuild
from judges.alignment.models import AlignmentProposal
from judges.models import JudgeCalibration, JudgeRun, Rubric
from judges.rubrics import rubric_version_create, rubric_version_fields
from reviews.models import Annotation, ReviewItem, ReviewStatus, SavedView
from tests.factories import GoldenExampleFactory
from tests.insights.world import insights_world
from traces.models import MaskingRule, Session, Trace, TraceDeletion
from traces.session_totals import sessions_totals_recount
from webhooks.models import Webhook

PARAM = re.compile(r"<(?:(?P<converter>\w+):)?(?P<name>\w+)>")


def endpoints(patterns=None, prefix=""):
    """(route text, pattern name) of every endpoint in the URL conf."""
    for entry in patterns if patterns is not None else get_resolver().url_patterns:
        if isinstance(entry, URLResolver):
            yield from endpoints(entry.url_patterns, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            yield prefix + str(entry.pattern), entry.name


def routes():
    """The text of every route in the URL conf ("traces/<int:trace_id>/", ...)."""
    return (route for route, _ in endpoints())


def route_world(owner, curator) -> dict:
    """Rows for every parameter. `owner` (an annotator) holds the review item, wrote the
    annotation and owns the API token and the saved view."""
    world = insights_world()
    trace = world["traces"][0]
    GoldenExampleFactory(source_trace=trace)
    dataset_version_create(name="walk", user=curator)
    item = ReviewItem.objects.filter(status=ReviewStatus.OPEN).order_by("pk").first()
    queue = item.queue
    ReviewItem.objects.filter(pk=item.pk).update(
        claimed_by=owner, lock_expires_at=timezone.now() + timedelta(minutes=15)
    )
    answered = ReviewItem.objects.exclude(pk=item.pk).order_by("pk").first()
    annotation = Annotation.objects.create(item=answered, annotator=owner, score=1)
    view = SavedView.objects.create(user=owner, queue=queue, name="mine")
    token, _ = ApiToken.generate(owner, "walk")
    calibration = JudgeCalibration.objects.create(
        rubric_version=world["binary"], config=world["config"]
    )
    proposal = AlignmentProposal.objects.create(
        source_version=world["binary"],
        config=world["config"],
        proposed_version=rubric_version_create(
            rubric=world["binary"].rubric,
            **{**rubric_version_fields(world["binary"]), "evaluation_steps": []},
        ),
    )
    hook = Webhook.objects.create(url="https://hooks.example.com/x", events=["gate.blocked"])
    span = trace.spans.first()
    session = Session.objects.create(project=trace.project, external_id="matrix-session")
    Trace.objects.filter(pk=trace.pk).update(session=session)
    sessions_totals_recount([session.pk])  # as ingest keeps them
    build = TopicBuild.objects.create(
        project=trace.project,
        window_start=timezone.now() - timedelta(days=30),
        window_end=timezone.now(),
        built_at=timezone.now(),
    )
    topic = Topic.objects.create(build=build, number=0, name="orders", size=1)
    masking_rule = MaskingRule.objects.create(
        project=trace.project, kind="pattern", pattern="ACME-[0-9]{6}", label="account"
    )
    deletion = TraceDeletion.objects.create(
        created_by=curator, query="", up_to_trace_id=trace.pk, matched=1
    )
    return {
        "trace_id": trace.pk,
        "deletion_id": deletion.pk,
        "item_id": item.pk,
        "queue_id": queue.pk,
        "run_id": JudgeRun.objects.first().pk,
        "rubric_id": Rubric.objects.first().pk,
        "number": 1,
        "annotation_id": annotation.pk,
        "view_id": view.pk,
        "token_id": token.pk,
        "calibration_id": calibration.pk,
        "proposal_id": proposal.pk,
        "session_id": session.pk,
        "topic_id": topic.pk,
        "key": "flip_rate",
        "part": "open",
        "span_pk": span.pk,
        "field": "input",
        "slug": trace.project.slug,
        "trial_id": _trial_id(),
        "name": "lookup_order",
        "rule_id": masking_rule.pk,
        "pk:golden/examples": GoldenExample.objects.first().pk,
        "pk:golden/versions": DatasetVersion.objects.first().pk,
        "pk:eval-runs": EvalRun.objects.first().pk,
        "pk:webhooks": hook.pk,
    }


def _trial_id() -> int:
    """A trial of the eval run the walk opens (the first), made when the world has none."""
    run = EvalRun.objects.order_by("pk").first()
    trial = run.trials.order_by("pk").first()
    if trial is None:
        entry = run.dataset_version.entries.order_by("pk").first()
        trial = EvalTrial.objects.create(eval_run=run, entry=entry)
    return trial.pk


def route_url(route: str, values: dict) -> str:
    """The route with its parameters filled from route_world; admin object ids are "1"."""

    def fill(match):
        name = match.group("name")
        if name == "pk":
            for prefix in ("golden/examples", "golden/versions", "eval-runs", "webhooks"):
                if prefix in route:
                    return str(values[f"pk:{prefix}"])
            return str(values["pk:eval-runs"])  # golden/evals/ pages
        if name == "key" and "insights/agent/" in route:
            return "agent_volume"  # the agent dashboard's charts
        return str(values.get(name, "1"))

    url = PARAM.sub(fill, route).replace("^", "").replace("$", "")
    return "/" + re.sub(r"\(\?P<\w+>[^)]*\)", "1", url)
