"""Malformed input never gives a 500: seeded random mutations of good payloads."""

import copy
import json
import random

import pytest

from tests.traces.test_ingest_span_tree import refund_tree
from tests.traces.test_ingest_transcripts import ANTHROPIC, OPENAI

pytestmark = pytest.mark.django_db
ODD_VALUES = [
    None,
    True,
    0,
    -1,
    2**70,
    1.5e308,
    "",
    "x" * 300,
    "\x00",
    [],
    {},
    [None],
    {"a": []},
    "2026-13-45T99:99:99Z",
    "NaN",
    ["name"],
    {"name": 3},
]


def paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from paths(item, (*prefix, index))


def mutated(payload, rng):
    payload = copy.deepcopy(payload)
    target = rng.choice([p for p in paths(payload) if p])
    parent = payload
    for step in target[:-1]:
        parent = parent[step]
    if rng.random() < 0.2 and isinstance(parent, dict):
        del parent[target[-1]]
    else:
        parent[target[-1]] = rng.choice(ODD_VALUES)
    return payload


@pytest.mark.parametrize(
    "seed_payload", [refund_tree(), ANTHROPIC, OPENAI], ids=["span_tree", "anthropic", "openai"]
)
def test_mutated_payloads_get_201_or_a_json_error(annotator, api_client_for, seed_payload):
    client = api_client_for(annotator)
    rng = random.Random(20261202)
    for _ in range(60):
        body = mutated(seed_payload, rng)
        response = client.post("/api/traces/", body, format="json")
        assert response.status_code in (201, 400), (response.status_code, json.dumps(body)[:300])
        if response.status_code == 400:
            assert response.json()["error"]["message"]


def test_mutated_otlp_json_gets_200_or_a_json_error(annotator, api_client_for):
    client = api_client_for(annotator)
    good = {
        "resourceSpans": [
            {
                "resource": {
                    "attributes": [{"key": "service.name", "value": {"stringValue": "travel"}}]
                },
                "scopeSpans": [
                    {
                        "scope": {"name": "agent"},
                        "spans": [
                            {
                                "traceId": "5b8efff798038103d269b633813fc60c",
                                "spanId": "eee19b7ec3c1b174",
                                "name": "execute_tool search_flights",
                                "kind": 1,
                                "startTimeUnixNano": "1760000000000000000",
                                "endTimeUnixNano": "1760000000500000000",
                                "attributes": [
                                    {"key": "gen_ai.tool.name", "value": {"stringValue": "search"}},
                                    {
                                        "key": "gen_ai.usage.input_tokens",
                                        "value": {"intValue": "12"},
                                    },
                                ],
                                "events": [{"name": "exception", "attributes": []}],
                                "status": {"code": 2, "message": "boom"},
                            }
                        ],
                    }
                ],
            }
        ]
    }
    rng = random.Random(7)
    for _ in range(80):
        body = json.dumps(mutated(good, rng)).encode()
        response = client.generic("POST", "/v1/traces", body, content_type="application/json")
        assert response.status_code in (200, 400), (response.status_code, body[:300])


@pytest.mark.parametrize("tokens", [2**70, 1.5e308, -5, "12", "many"])
def test_out_of_range_token_counts_do_not_crash(annotator, api_client_for, tokens):
    tree = refund_tree()
    tree["children"][0]["attributes"]["gen_ai.usage.input_tokens"] = tokens
    response = api_client_for(annotator).post("/api/traces/", tree, format="json")
    assert response.status_code == 201
    assert 0 <= response.json()["input_tokens"] < 2**31


def test_corrupted_protobuf_gets_200_or_a_json_error(annotator, api_client_for):
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    from tests.traces.test_ingest_otlp import recorded_spans

    client = api_client_for(annotator)
    good = encode_spans(recorded_spans()).SerializeToString()
    rng = random.Random(11)
    for _ in range(60):
        body = bytearray(good)
        for _ in range(rng.randint(1, 6)):
            body[rng.randrange(len(body))] = rng.randrange(256)
        response = client.generic(
            "POST", "/v1/traces", bytes(body), content_type="application/x-protobuf"
        )
        assert response.status_code in (200, 400), response.content[:300]
