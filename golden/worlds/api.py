"""Tool-world endpoints: start and finish a run's worlds (curators, API token), and the plain
HTTP world itself (the trial's own token). The MCP endpoint is golden/worlds/mcp_server.py."""

from __future__ import annotations

import json
import time

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from evalsite_checks.worlds.answering import world_tools
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsAnnotator, IsCurator
from golden.evals.services import eval_run_lookup
from golden.models import EvalTrial, ToolWorldCall
from golden.selectors import dataset_entries_visible
from golden.worlds.access import bearer_token, trial_world_open
from golden.worlds.runs import eval_run_tool_worlds_finish, eval_run_tool_worlds_start
from golden.worlds.serving import tool_world_call
from golden.worlds.traceparent import traceparent_trace_id


class TrialHandoutOut(serializers.Serializer):
    trial_id = serializers.IntegerField()
    example_key = serializers.CharField()
    variant = serializers.CharField()
    task_key = serializers.CharField()
    trial = serializers.IntegerField()
    task = serializers.CharField()
    context = serializers.JSONField()
    fault_kinds = serializers.ListField(child=serializers.CharField())
    tool_world = serializers.JSONField(
        allow_null=True,
        help_text="token, tools_url, call_url (with {name}) and mcp_url; null without a world.",
    )
    tags = serializers.JSONField(help_text="Tags the trial's trace must carry.")


class ToolWorldsStartView(APIView):
    """Create every trial of the run with its own tool-world token (shown once)."""

    permission_classes = [IsCurator]

    @extend_schema(
        request=None,
        responses=inline_serializer(
            "ToolWorldsStartOut",
            {"run": serializers.CharField(), "trials": TrialHandoutOut(many=True)},
        ),
    )
    def post(self, request, pk: int):
        run = eval_run_lookup(pk, field="id")
        handouts = eval_run_tool_worlds_start(
            run, user=request.user, base_url=request.build_absolute_uri("/")
        )
        return Response({"run": run.name, "trials": handouts}, status=201)


class ToolWorldsFinishView(APIView):
    """Close the run's worlds: their tokens stop working."""

    permission_classes = [IsCurator]

    @extend_schema(
        request=None,
        responses=inline_serializer("ToolWorldsFinishOut", {"closed": serializers.IntegerField()}),
    )
    def post(self, request, pk: int):
        run = eval_run_lookup(pk, field="id")
        return Response({"closed": eval_run_tool_worlds_finish(run)})


class ToolWorldCallOut(serializers.ModelSerializer):
    class Meta:
        model = ToolWorldCall
        fields = (
            "sequence",
            "tool",
            "arguments",
            "status",
            "returned",
            "recording",
            "fault",
            "transport",
            "trace_id",
            "created_at",
        )
        read_only_fields = fields


class TrialToolCallsView(APIView):
    """Every call a trial made to its world, in order, with what was returned and which fault
    fired."""

    permission_classes = [IsAnnotator]

    @extend_schema(responses=ToolWorldCallOut(many=True))
    def get(self, request, pk: int, trial_id: int):
        run = eval_run_lookup(pk, field="id")
        visible = dataset_entries_visible(request.user, run.dataset_version)
        trial = get_object_or_404(
            EvalTrial.objects.filter(eval_run=run, entry__in=visible), pk=trial_id
        )
        calls = trial.tool_calls.order_by("sequence")
        return Response(ToolWorldCallOut(calls, many=True).data)


class _WorldView(APIView):
    # The trial's token is the only credential here; API tokens and sessions are not asked.
    authentication_classes: list = []
    permission_classes = [AllowAny]

    def trial(self, request, trial_id: int) -> EvalTrial:
        return trial_world_open(trial_id, bearer_token(request.headers.get("Authorization", "")))


class ToolWorldToolsView(_WorldView):
    """The tools of a trial's world with their JSON schemas."""

    @extend_schema(
        responses=inline_serializer("ToolWorldToolsOut", {"tools": serializers.JSONField()})
    )
    def get(self, request, trial_id: int):
        trial = self.trial(request, trial_id)
        return Response({"tools": world_tools(trial.entry.content.get("tool_world") or {})})


class ToolWorldCallView(_WorldView):
    """Call one tool with JSON arguments; the answer is the recorded result, the declared
    default, or the trial's injected fault. Every call is recorded, refused ones included."""

    @extend_schema(
        request={"application/json": {"type": "object", "additionalProperties": True}},
        responses={
            200: OpenApiResponse(description='{"result": ...} (or a malformed body on purpose)'),
            400: OpenApiResponse(description="Arguments refused (not an object, or by the schema)"),
            404: OpenApiResponse(description="Unknown tool, or no recording for these arguments"),
            504: OpenApiResponse(description="An injected timeout"),
        },
    )
    def post(self, request, trial_id: int, name: str):
        trial = self.trial(request, trial_id)
        raw = request.body.decode("utf-8", errors="replace")
        try:
            arguments = json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError:
            # Kept as sent, so the record shows what the agent asked; the schema check refuses it.
            arguments = raw
        answer = tool_world_call(
            trial,
            name,
            arguments,
            transport=ToolWorldCall.Transport.HTTP,
            trace_id=traceparent_trace_id(request.headers.get("traceparent", "")),
        )
        if answer.delay_seconds:
            time.sleep(answer.delay_seconds)
        if answer.raw is not None:
            return HttpResponse(answer.raw, status=answer.status, content_type="application/json")
        return Response(answer.body, status=answer.status)
