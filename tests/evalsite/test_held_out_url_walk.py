"""Every route, walked as an annotator: a held-out trace's id, task and answer never appear.

The routes come from the URL conf itself, so a new page or API operation is walked without
anyone adding it here. Path parameters are filled from the rows in the database.
"""

import itertools
import re

import pytest
from django.contrib.auth import SESSION_KEY

from accounts.models import ApiToken
from golden.models import DatasetVersion, EvalRun, EvalTrial, GoldenExample
from golden.services import dataset_version_create
from insights.models import Topic
from insights.overview import CHART_BUILDERS
from insights.topics import topics_build
from judges.alignment.models import AlignmentProposal
from judges.models import JudgeCalibration, JudgeRun, Rubric, RubricVersion
from reviews.models import Annotation, Queue, ReviewItem, SavedView
from tests.accounts.route_world import endpoints
from tests.factories import GoldenExampleFactory, SpanFactory
from tests.insights.world import insights_world
from traces.models import MaskingRule, Project, Session, Trace, TraceDeletion
from traces.session_totals import sessions_totals_recount

HELD_OUT_ID = "feedfacecafebeef0123456789abcdef"
HELD_OUT_TASK = "Book the Zanzibar board retreat for 14 people, budget EUR 9417."
HELD_OUT_ANSWER = "Booked the Baraza resort, confirmation ZNZ-5521."
SECRETS = (HELD_OUT_ID, "Zanzibar board retreat", "ZNZ-5521")

# Operations that change who is logged in; the walk must keep its annotator.
SKIPPED_NAMES = {"logout"}
PARAM = re.compile(r"<(?:(?P<converter>\w+):)?(?P<name>\w+)>|\(\?P<(?P<regex_name>\w+)>")


def _candidates(world) -> dict[str, list[str]]:
    """Values for each path parameter name, from the rows in the database."""

    def pks(model):
        return [str(pk) for pk in model.objects.values_list("pk", flat=True)]

    golden_pks = pks(GoldenExample) + pks(DatasetVersion) + pks(EvalRun)
    return {
        "trace_id": pks(Trace),
        "deletion_id": pks(TraceDeletion),
        "session_id": pks(Session),
        "item_id": pks(ReviewItem),
        "queue_id": pks(Queue),
        "run_id": pks(JudgeRun),
        "rubric_id": pks(Rubric),
        "number": sorted({str(n) for n in RubricVersion.objects.values_list("number", flat=True)}),
        "annotation_id": pks(Annotation),
        "view_id": pks(SavedView),
        "token_id": pks(ApiToken),
        "calibration_id": pks(JudgeCalibration),
        "topic_id": pks(Topic),
        "slug": list(Project.objects.values_list("slug", flat=True)),
        "rule_id": pks(MaskingRule),
        "trial_id": pks(EvalTrial),
        "proposal_id": pks(AlignmentProposal),
        "name": ["lookup_order"],
        "pk": sorted(set(golden_pks)),
        "key": list(CHART_BUILDERS),
        "part": ["open", "held_out"],
        "object_id": [str(world["held_out_trace"].pk)],
        "content_type_id": ["1"],
        "app_label": ["traces"],
        "url": ["traces/trace/"],
        "id": ["1"],
        # The held-out trace's own spans, under every trace id: none may answer with its values.
        "span_pk": [
            str(pk) for pk in world["held_out_trace"].spans.values_list("pk", flat=True)[:2]
        ],
        "field": ["input", "output", "attributes"],
    }


def _urls(route: str, candidates: dict[str, list[str]]):
    names = [m.group("name") or m.group("regex_name") for m in PARAM.finditer(route)]
    plain = route.replace("^", "").replace("$", "")
    for values in itertools.product(*(candidates[name] for name in names)):
        filled = iter(values)
        url = PARAM.sub(lambda _match, filled=filled: next(filled), plain)
        # A regex group's pattern body ([^/]+, .*, |-alternatives) is dropped with the group.
        url = re.sub(r"[^/]*\)", "", url) if "(?P" in route else url
        yield "/" + url


def _body(response) -> str:
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content).decode(errors="replace")
    return response.content.decode(errors="replace")


@pytest.fixture
def world(curator, annotator, api_client_for):
    data = insights_world()
    held = data["traces"][-1]  # it has judgments, verdicts and an open review item
    Trace.objects.filter(pk=held.pk).update(
        external_id=HELD_OUT_ID, task=HELD_OUT_TASK, final_answer=HELD_OUT_ANSWER
    )
    ReviewItem.objects.filter(trace=held).update(task_excerpt=HELD_OUT_TASK)
    SpanFactory(trace=held, input={"task": HELD_OUT_TASK}, output={"answer": HELD_OUT_ANSWER})
    GoldenExampleFactory(task=HELD_OUT_TASK, source_trace=held, held_out=True)
    # A conversation holding the held-out trace and an open one: its pages show the open one.
    session = Session.objects.create(project=held.project, external_id="walk-session")
    Trace.objects.filter(pk__in=[held.pk, data["traces"][0].pk]).update(session=session)
    sessions_totals_recount([session.pk])  # as ingest keeps them
    dataset_version_create(name="walk", user=curator)
    SavedView.objects.create(user=annotator, queue=Queue.objects.first(), name="mine")
    JudgeCalibration.objects.create(rubric_version=data["binary"], config=data["config"])
    # Topics of the project: a held-out trace is never one of their traces or examples.
    assert topics_build(held.project) is not None
    data["held_out_trace"] = held
    data["api"] = api_client_for(annotator)
    return data


def test_golden_keeps_the_trace_flag_of_a_held_out_source(world):
    assert Trace.objects.get(pk=world["held_out_trace"].pk).held_out is True
    assert Trace.objects.filter(held_out=True).count() == 1


def test_no_route_shows_a_held_out_trace_to_an_annotator(client, annotator, world):
    client.raise_request_exception = False
    world["api"].raise_request_exception = False
    candidates = _candidates(world)
    hidden_trace = str(world["held_out_trace"].pk)
    leaks, errors, walked = [], [], 0
    routes = [(route, name) for route, name in endpoints() if name not in SKIPPED_NAMES]
    client.force_login(annotator)
    for method in ("get", "post"):
        for route, _name in routes:
            for url in _urls(route, candidates):
                caller = world["api"] if url.startswith(("/api/", "/v1/")) else client
                data = {"trace": hidden_trace, "trace_id": hidden_trace, "q": "Zanzibar"}
                if method == "get":
                    response = caller.get(url, {"q": "Zanzibar", "search": "Zanzibar"})
                else:
                    response = caller.post(url, data)
                # every page is asked as the annotator: after one that ended the session
                # (a logout of its own) the walk logs in again
                if caller is client and client.session.get(SESSION_KEY) != str(annotator.pk):
                    client.force_login(annotator)
                walked += 1
                if response.status_code >= 500:
                    errors.append(f"{method.upper()} {url} -> {response.status_code}")
                body = _body(response)
                leaks += [f"{method.upper()} {url}: {s}" for s in SECRETS if s in body]
    assert walked > 200
    assert not leaks, leaks
    assert not errors, errors
