"""POST /api/guardrails/check: allow or block an agent's next tool call."""

from __future__ import annotations

import time

import orjson
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ParseError, UnsupportedMediaType
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsAnnotator
from guardrails.check import (
    ALLOW,
    BLOCK,
    RUNTIME_KINDS,
    guardrail_check,
    project_with_policy,
)
from guardrails.services import guardrail_decision_record
from traces.api import ERROR_RESPONSES, TraceJSONParser
from traces.projects import (
    PROJECT_SLUG,
    project_header_read,
    project_resolve,
    project_slug_resolve,
)


class GuardrailJSONParser(TraceJSONParser):
    """The trajectory is resent before every tool call and grows with it; orjson reads a
    long one several times faster than the standard library."""

    def parse(self, stream, media_type=None, parser_context=None):
        return _json_loads(stream.read())


def _json_loads(body: bytes):
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise ParseError(f"JSON parse error - {exc}") from exc


def _body_read(request):
    """The JSON body, read here rather than as `request.data`: DRF keeps `request.data` on a
    request that sits in a reference cycle with its view, so a long trajectory would wait for
    the cyclic garbage collector, whose passes over it were the slowest requests (hundreds of
    ms every few hundred checks). Read here, it is freed when the answer goes out."""
    media_type = (request.content_type or "").split(";")[0].strip().lower()
    if media_type != "application/json":
        raise UnsupportedMediaType(media_type or "(none)")
    return _json_loads(request.body)


def _parsed_release(payload, data) -> None:
    # The serializer and its fields form a cycle; emptying what they hold frees the
    # trajectory now, through reference counts, rather than at a cyclic collection.
    for held in (payload, getattr(data, "_validated_data", None)):
        if isinstance(held, dict):
            held.clear()


class AnswerThenRelease(Response):
    """An answer whose `close_callbacks` run once it is sent: freeing the hundred thousand
    objects of a long trajectory (about a millisecond) then does not delay the agent."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.close_callbacks = []

    def close(self):
        super().close()
        for callback in self.close_callbacks:
            callback()
        self.close_callbacks = []


class ParsedJSONObject(serializers.JSONField):
    """A JSON object from the parsed body, taken as it is: the body was JSON already, and
    re-encoding a long trajectory to prove it would cost more than the checks."""

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            raise serializers.ValidationError("Expected a JSON object.")
        return data


def _at_most(value: str, length: int) -> str:
    # Checked here rather than with max_length, whose validator costs a translation lookup
    # per request.
    if len(value) > length:
        raise serializers.ValidationError(f"At most {length} characters.")
    return value


class GuardrailCallIn(serializers.Serializer):
    tool = serializers.CharField(help_text="The tool about to be called (at most 200 characters).")
    input = ParsedJSONObject(required=False, default=dict, help_text="Its arguments.")
    id = serializers.CharField(
        required=False, default="", help_text="The call id (at most 32), named in checks."
    )

    def validate_tool(self, value):
        return _at_most(value, 200)

    def validate_id(self, value):
        return _at_most(value, 32)


class GuardrailCheckIn(serializers.Serializer):
    project = serializers.CharField(
        required=False,
        help_text="Project slug; else the x-evalsite-project header, else `default`.",
    )
    trajectory = ParsedJSONObject(
        required=False,
        help_text="The trajectory so far: a span tree or an Anthropic/OpenAI transcript, "
        "as POST /api/traces/ takes it.",
    )
    trace_id = serializers.CharField(
        required=False,
        help_text="The trace id (at most 64 characters) the agent exports under. Without "
        "`trajectory`, the stored spans of that trace are checked.",
    )
    next_call = GuardrailCallIn(required=False, help_text="The tool call about to be made.")
    record = serializers.BooleanField(
        default=False, help_text="Keep the decision for the trace page and the overview."
    )

    def validate_project(self, value):
        if not PROJECT_SLUG.match(value):
            raise serializers.ValidationError("Use 1-100 letters, digits, '-' or '_'.")
        return value

    def validate_trace_id(self, value):
        return _at_most(value, 64)

    def validate(self, attrs):
        if "trajectory" not in attrs and not attrs.get("trace_id"):
            raise serializers.ValidationError(
                {
                    "trajectory": [
                        "Send the trajectory so far, or the `trace_id` it is stored under."
                    ]
                }
            )
        if attrs["record"] and not attrs.get("trace_id"):
            trajectory = attrs.get("trajectory")
            if not (isinstance(trajectory, dict) and trajectory.get("trace_id")):
                raise serializers.ValidationError(
                    {"trace_id": ["Recording needs the id the trace is exported under."]}
                )
        return attrs


class GuardrailCheckOut(serializers.Serializer):
    """The span ids are the sender's (or derived as ingest derives them); `next_call` names
    the pending call unless it was given an id."""

    decision = serializers.ChoiceField(choices=[ALLOW, BLOCK])
    checks = serializers.ListField(
        child=serializers.DictField(),
        help_text="Fired checks, blocking first: check, label, span_id, detail, fallback, "
        "blocking.",
    )
    fallback = serializers.CharField(
        allow_blank=True, help_text="What to return to the model instead, when blocked."
    )
    steps = serializers.IntegerField(help_text="Tool calls counted, the next one included.")
    checked_span_id = serializers.CharField(allow_blank=True)
    thresholds = serializers.DictField()
    trace_id = serializers.CharField()
    recorded = serializers.IntegerField(allow_null=True)
    server_ms = serializers.FloatField()


class GuardrailCheckApi(APIView):
    """The red-flag checks (loop, hallucinated parameter, prerequisite, max steps) before a
    tool call; nothing is written unless `record` is true. 200 for allow and block alike."""

    permission_classes = [IsAnnotator]
    # The agent asks before each tool call, with the token it sends traces with.
    send_only_methods = ("POST",)
    parser_classes = [GuardrailJSONParser]

    def dispatch(self, request, *args, **kwargs):
        # Server-Timing covers authentication and parsing too, in wall and CPU time.
        started, cpu_started = time.perf_counter(), time.thread_time()
        response = super().dispatch(request, *args, **kwargs)
        elapsed = (time.perf_counter() - started) * 1000
        cpu = (time.thread_time() - cpu_started) * 1000
        response["Server-Timing"] = f"guardrail;dur={elapsed:.3f}, cpu;dur={cpu:.3f}"
        return response

    @extend_schema(
        request=GuardrailCheckIn,
        responses={200: GuardrailCheckOut, **ERROR_RESPONSES},
        examples=[
            OpenApiExample(
                "Third identical search",
                request_only=True,
                value={
                    "project": "travel-agent",
                    "trace_id": "4bf92f3577b34da6a3ce929d0e0e4736",
                    "trajectory": {
                        "name": "agent",
                        "type": "agent",
                        "task": "Flights LHR to JFK on 2026-03-14",
                        "children": [
                            {
                                "name": "search_flights",
                                "type": "tool",
                                "input": {"origin": "LHR", "destination": "JFK"},
                                "output": {"flights": []},
                            }
                        ],
                    },
                    "next_call": {
                        "tool": "search_flights",
                        "input": {"origin": "LHR", "destination": "JFK"},
                    },
                },
            )
        ],
    )
    def post(self, request):
        started = time.perf_counter()
        payload = _body_read(request)
        data = GuardrailCheckIn(data=payload)
        try:
            data.is_valid(raise_exception=True)
            response = self._answer(request, data.validated_data, started)
        except BaseException:
            _parsed_release(payload, data)
            raise
        response.close_callbacks.append(lambda: _parsed_release(payload, data))
        return response

    def _answer(self, request, values: dict, started: float) -> Response:
        slug = project_slug_resolve(
            named=values.get("project"), header=project_header_read(request)
        ).slug
        record = values["record"]
        # Checking writes nothing; only a decision to keep may start a project.
        project = project_resolve(named=slug) if record else project_with_policy(slug)
        result = guardrail_check(
            project,
            trajectory=values.get("trajectory"),
            trace_id=values.get("trace_id", ""),
            next_call=values.get("next_call"),
        )
        recorded = guardrail_decision_record(project, result, request.user) if record else None
        blocking = [c for c in result.checks if c["blocking"]]
        elapsed = (time.perf_counter() - started) * 1000
        return AnswerThenRelease(
            {
                "decision": result.decision,
                "checks": result.checks,
                "fallback": blocking[0]["fallback"] if blocking else "",
                "steps": result.steps,
                "checked_span_id": result.checked_span_id,
                "thresholds": {
                    "loop_repeats": result.rules.loop_repeats,
                    "max_steps": result.rules.max_steps,
                    "tool_prerequisites": result.rules.prerequisites,
                    "checks": list(RUNTIME_KINDS),
                    "source": result.policy_source,
                },
                "trace_id": result.trace_external_id,
                "recorded": recorded.pk if recorded else None,
                "server_ms": round(elapsed, 3),
            }
        )
