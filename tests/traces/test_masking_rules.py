"""Masking rules: what each detector finds and leaves, marks and pseudonyms, attribute rules,
the rules' API and page, their audit, and masking what was stored before."""

import io
import json
import re
import subprocess
import sys
import uuid

import pytest
from django.core.management import call_command
from django.test import Client

from core.errors import ApplicationError
from traces.masking.detectors import DETECTORS
from traces.masking.masker import (
    DROPPED_ATTRIBUTE,
    Gate,
    KeyRule,
    Masker,
    TextRule,
    detector_rule,
    every_detector,
    pattern_finder,
)
from traces.masking.rules import builtin_rules_enable, masker_build, rule_check, rule_create
from traces.models import MaskingRuleChange, Project, Trace

KEY = "0" * 64


@pytest.mark.parametrize(
    "name,example",
    [(d.name, example) for d in DETECTORS.values() for example in d.examples],
)
def test_each_detector_finds_its_examples_inside_text(name, example):
    text = f"Before ({example}) after."
    found = [text[start:end] for start, end in DETECTORS[name].find(text)]
    assert example in found or any(example.startswith(f) and len(f) > 20 for f in found)


@pytest.mark.parametrize(
    "text",
    [
        "Order ORD-20261205-0042 placed on 2026-12-05 at 12:30:45",
        "Tracking 1Z999AA10123456784, invoice 4815162342, version 3.11.7",
        "Card ending 4111 1111 1111 1112 failed the checksum",  # not Luhn-valid
        "IBAN DE89 3704 0044 0532 0130 01 has a wrong check",
        "Reach us at support (at) example dot com",
        "token eyJhbGciOiJub25lIn0 is half a JWT",
        "time 10:15:00 and ratio 1:2:3",
    ],
)
def test_detectors_leave_look_alikes_alone(text):
    assert every_detector(KEY).text(text) == text


def test_a_pseudonym_is_stable_within_a_project_and_differs_across_projects():
    text = "Write to maria.gonzalez@example.com, then to maria.gonzalez@example.com again."
    once = every_detector(KEY).text(text)
    marks = set(re.findall(r"<email:[0-9a-f]{8}>", once))
    assert len(marks) == 1 and "maria" not in once
    assert every_detector(KEY).text(text) == once
    assert every_detector("1" * 64).text(text) != once


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("maria.gonzalez@example.com", "Maria.Gonzalez@EXAMPLE.COM"),
        ("+44 20 7946 0958", "+44-20-7946-0958"),
        ("4111 1111 1111 1111", "4111-1111-1111-1111"),
        ("DE89 3704 0044 0532 0130 00", "DE89370400440532013000"),
    ],
)
def test_one_value_written_two_ways_gets_one_pseudonym(one, other):
    # an agent that writes a customer's address in capitals still names the same customer,
    # so a reference step and the agent's call compare equal once both are masked
    masker = Masker(KEY, [detector_rule(name, name, True) for name in DETECTORS], [])
    first, second = masker.text(f"value {one} end"), masker.text(f"value {other} end")
    assert first == second and first.startswith("value <")
    assert masker.text("value ana@example.com end") != first


def test_masking_masked_text_changes_nothing():
    masker = every_detector(KEY)
    once = masker.text("Call +44 20 7946 0958 or pay 4111 1111 1111 1111.")
    assert masker.text(once) == once
    assert "<phone:" in once and "<card:" in once


def test_identifier_keys_get_a_pseudonym_even_under_a_fixed_mark_rule():
    masker = Masker(KEY, [detector_rule("email", "email", pseudonym=False)], [])
    value = masker.value(
        {"session.id": "a@example.com", "user_id": "b@example.com", "note": "c@example.com"}
    )
    assert value["note"] == "<email>"
    assert value["session.id"].startswith("<email:") and value["user_id"].startswith("<email:")
    assert value["session.id"] != value["user_id"]


def test_attribute_rules_match_paths_and_bare_keys_and_list_what_they_drop():
    masker = Masker(
        KEY,
        [],
        [
            KeyRule("*.password", "password", "mark"),
            KeyRule("http.request.header.authorization", "auth", "drop"),
            KeyRule("api_key", "key", "pseudonym"),
        ],
    )
    masked = masker.attributes(
        {
            "db.password": "pw1",
            "http.request.header.authorization": "Bearer abc",
            "tool": {"args": {"api_key": "k-123", "city": "Lyon"}},
        }
    )
    assert masked["db.password"] == "<password>"
    assert "http.request.header.authorization" not in masked
    assert masked[DROPPED_ATTRIBUTE] == ["http.request.header.authorization"]
    assert masked["tool"]["args"]["api_key"].startswith("<key:")
    assert masked["tool"]["args"]["city"] == "Lyon"


@pytest.mark.parametrize(
    "data,field",
    [
        ({"kind": "regex"}, "kind"),
        ({"kind": "detector", "detector": "ssn"}, "detector"),
        ({"kind": "pattern", "pattern": "("}, "pattern"),
        ({"kind": "pattern", "pattern": "a*"}, "pattern"),
        ({"kind": "pattern", "pattern": "x" * 501}, "pattern"),
        ({"kind": "attribute", "pattern": ""}, "pattern"),
        ({"kind": "pattern", "pattern": "ACME-\\d+", "action": "drop"}, "action"),
        ({"kind": "pattern", "pattern": "ACME-\\d+", "label": "Bad Label"}, "label"),
        ({"kind": "pattern", "pattern": "ACME-\\d+", "enabled": "yes"}, "enabled"),
    ],
)
def test_a_wrong_rule_is_refused_naming_the_field(data, field):
    with pytest.raises(ApplicationError) as raised:
        rule_check(data)
    assert raised.value.field == field


@pytest.mark.django_db
def test_rules_api_creates_changes_deletes_and_audits(api_client_for, curator, annotator):
    Project.objects.create(name="Shop", slug="shop")
    client = api_client_for(curator)
    base = "/api/projects/shop/masking-rules/"
    assert api_client_for(annotator).get(base).status_code == 403
    bad = client.post(base, {"kind": "pattern", "pattern": "("}, format="json")
    assert bad.status_code == 400 and "pattern" in bad.json()["error"]["fields"]
    made = client.post(
        base, {"kind": "pattern", "pattern": r"ACME-\d{6}", "label": "account"}, format="json"
    )
    assert made.status_code == 201, made.content
    rule_id = made.json()["id"]
    preview = client.post(
        "/api/projects/shop/masking-preview/", {"text": "acct ACME-123456 ok"}, format="json"
    )
    assert preview.json()["masked"].startswith("acct <account:")
    changed = client.patch(f"{base}{rule_id}/", {"action": "mark"}, format="json")
    assert changed.json()["action"] == "mark"
    assert client.patch(f"{base}{rule_id}/", {"colour": "red"}, format="json").status_code == 400
    assert client.delete(f"{base}{rule_id}/").status_code == 204
    changes = client.get("/api/projects/shop/masking-changes/").json()["results"]
    assert [c["action"] for c in changes] == ["deleted", "changed", "created"]
    assert changes[1]["before"]["action"] == "pseudonym" and changes[1]["after"]["action"] == "mark"
    assert {c["user"] for c in changes} == {curator.username}


@pytest.mark.django_db
def test_the_masking_page_adds_rules_turns_on_builtins_and_previews(curator):
    project = Project.objects.create(name="Shop", slug="shop")
    client = Client()
    client.force_login(curator)
    page = client.get("/traces/projects/shop/masking/")
    assert page.status_code == 200 and b"No rule" in page.content
    client.post("/traces/projects/shop/masking/builtins/")
    assert project.masking_rules.count() == len(DETECTORS)
    refused = client.post(
        "/traces/projects/shop/masking/",
        {"add": "1", "kind": "pattern", "pattern": "(", "action": "mark"},
    )
    assert refused.status_code == 400 and b"not a regular expression" in refused.content
    preview = client.post(
        "/traces/projects/shop/masking/",
        {"preview": "1", "text": "<script>x</script> mail maria.gonzalez@example.com"},
    )
    body = preview.content.decode()
    assert '<mark class="masked"' in body and "&lt;script&gt;" in body
    assert "maria.gonzalez" not in body.split('id="masking-preview-result"')[1]
    rule = project.masking_rules.first()
    client.post(f"/traces/projects/shop/masking/{rule.pk}/")
    rule.refresh_from_db()
    assert rule.enabled is False
    assert MaskingRuleChange.objects.filter(project=project, action="changed").count() == 1


@pytest.mark.django_db
def test_a_rule_change_applies_to_the_next_request_without_a_restart(curator):
    project = Project.objects.create(name="Shop", slug="shop")
    assert masker_build(project.pk) is None
    client = Client()
    client.force_login(curator)

    def send(text):
        body = {"trace_id": uuid.uuid4().hex, "name": "agent", "input": text}
        response = client.post(
            "/api/traces/",
            json.dumps(body),
            content_type="application/json",
            HTTP_X_EVALSITE_PROJECT="shop",
        )
        return Trace.objects.get(pk=response.json()["id"]).task

    assert send("mail a@example.com") == "mail a@example.com"
    rule_create(project, {"kind": "detector", "detector": "email"}, curator)
    assert send("mail a@example.com").startswith("mail <email:")


@pytest.mark.django_db
def test_mask_stored_masks_earlier_traces_spans_feedback_and_search(curator):
    from traces.feedback import feedback_record
    from traces.search.documents import search_documents_build

    project = Project.objects.create(name="Shop", slug="shop")
    client = Client()
    client.force_login(curator)
    body = {
        "trace_id": "ab" * 16,
        "name": "agent",
        "input": "refund for maria.gonzalez@example.com",
        "children": [{"name": "lookup", "type": "tool", "input": {"phone": "+44 20 7946 0958"}}],
    }
    client.post(
        "/api/traces/",
        json.dumps(body),
        content_type="application/json",
        HTTP_X_EVALSITE_PROJECT="shop",
    )
    trace = Trace.objects.get()
    feedback_record(
        {
            "trace_id": trace.external_id,
            "project": "shop",
            "kind": "thumbs",
            "value": True,
            "comment": "card 4111 1111 1111 1111",
        },
        curator,
    )
    search_documents_build([trace.pk])
    builtin_rules_enable(project, curator)
    call_command("mask_stored", "shop", stdout=io.StringIO())
    trace.refresh_from_db()
    assert trace.task.startswith("refund for <email:")
    assert trace.spans.get(name="lookup").input["phone"].startswith("<phone:")
    assert trace.feedback.get().comment.startswith("card <card:")
    assert "maria" not in str(trace.search_document.document)


def test_the_rules_library_is_not_loaded_by_importing_the_ingest_path():
    code = (
        "import django, os, sys;"
        "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'evalsite.settings');"
        "django.setup(); import traces.ingest.store, traces.receivers;"
        "print('detect_secrets' in sys.modules, 'phonenumbers' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split()[-2:] == ["False", "False"]


@pytest.mark.parametrize(
    "name,example",
    [(d.name, example) for d in DETECTORS.values() for example in d.examples],
)
def test_the_gate_lets_every_example_through_raw_and_as_json(name, example):
    masker = every_detector(KEY)
    index = list(DETECTORS).index(name)
    for context in (f"x {example} y", f"line one\n{example}\tend", f'"{example}"'):
        assert index in Gate(masker.text_rules).rules_for([context])
        assert index in Gate(masker.text_rules).rules_for(json.dumps({"v": [context]}).encode())


def test_a_span_without_anything_to_mask_is_left_as_the_same_objects():
    from traces.ingest.records import SpanRecord
    from traces.masking.records import records_mask

    attributes = {"gen_ai.tool.name": "search_flights", "results": [{"price": 412, "to": "LIS"}]}
    record = SpanRecord("t", "s", "", "execute_tool search_flights", attributes=attributes)
    records_mask(every_detector(KEY), [record])
    assert record.attributes is attributes


def test_a_pattern_rule_re2_cannot_read_still_runs():
    rule = TextRule("ref", True, pattern_finder(r"(?<=ref )\d{4}"), gates=(r"(?<=ref )\d{4}",))
    assert Masker(KEY, [rule], []).text("see ref 1234").startswith("see ref <ref:")
    assert Gate((rule,)).rules_for(["nothing"]) == {0}


@pytest.mark.django_db
def test_a_worker_preloads_the_maskers_of_projects_that_mask(curator):
    from traces.masking.cache import maskers
    from traces.masking.rules import masking_preload

    quiet = Project.objects.create(name="Quiet", slug="quiet")
    shop = Project.objects.create(name="Shop", slug="shop")
    rule_create(shop, {"kind": "detector", "detector": "email"}, curator)
    maskers.clear()
    masking_preload()
    assert set(maskers.entries) == {shop.pk} and quiet.pk not in maskers.entries
    assert maskers.entries[shop.pk][0]._gate is not None
