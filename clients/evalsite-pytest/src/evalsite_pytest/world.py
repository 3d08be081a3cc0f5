"""A golden example's tool world in the test's own process: the agent calls its tools as plain
functions (or as `(status, text)` like the HTTP endpoint), each call is answered as the server
answers it (evalsite_checks.worlds.answering: the same argument matching, defaults and
faults) and recorded, for the trajectory assertions to read."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from evalsite_checks.steps import ToolStep
from evalsite_checks.worlds.answering import (
    INVALID_ARGUMENTS_STATUS,
    OK,
    base_answer,
    fault_firing,
    faulted,
    refusal,
    world_tools,
)
from evalsite_checks.worlds.schema import tool_world_errors, tool_world_normalize, world_variant

from evalsite_pytest.checks import TrajectoryCheck, assert_trajectory, trajectory_check


@dataclass(frozen=True)
class WorldCall:
    """One call the agent made, as answered: what it asked, the status and answer, which
    recording answered (its index) and which fault fired."""

    sequence: int
    tool: str
    arguments: Any
    status: int
    body: Any
    raw: str | None
    recording: int | None
    fault: dict | None
    delay_seconds: float
    # The call's turn among the calls of its tool (1 for the first).
    tool_turn: int

    @property
    def ok(self) -> bool:
        return self.status == OK

    @property
    def text(self) -> str:
        """The answer as the HTTP endpoint sends it."""
        return self.raw if self.raw is not None else json.dumps(self.body, ensure_ascii=False)

    @property
    def returned(self) -> Any:
        """What was sent back, as the server records it: the body, or the malformed text."""
        return self.raw if self.raw is not None else self.body

    @property
    def output(self) -> Any:
        """What the agent got: the result, the error body, or a malformed text as it is."""
        if self.raw is not None:
            return self.raw
        if self.ok and isinstance(self.body, dict) and "result" in self.body:
            return self.body["result"]
        return self.body


class ToolCallFailed(Exception):
    """A call the world answered with an error status (an injected error or timeout, an
    unrecorded call, an unknown tool, arguments the schema refused)."""

    def __init__(self, call: WorldCall):
        error = call.body.get("error") if isinstance(call.body, dict) else None
        message = error.get("message") if isinstance(error, dict) else call.text
        super().__init__(f"{call.tool} answered {call.status}: {message}")
        self.call = call
        self.status = call.status


class ToolWorld:
    """The tool world of one golden example, in one variant ("" is the base world)."""

    def __init__(self, example: dict, variant: str = "", *, sleep_on_timeout: bool = False):
        key = example.get("key", "?")
        world = example.get("tool_world") or {}
        if not world:
            raise ValueError(f"golden example {key!r} has no tool world")
        errors = tool_world_errors(world)
        if errors:
            problems = "; ".join(f"{path}: {message}" for path, message in errors.items())
            raise ValueError(f"golden example {key!r} has an invalid tool world: {problems}")
        self.example = example
        self.world = tool_world_normalize(world)
        self.variant_name = variant
        self.variant = world_variant(self.world, variant)
        if variant and self.variant is None:
            names = ", ".join(v["name"] for v in self.world["variants"]) or "none"
            raise ValueError(f"golden example {key!r} has no variant {variant!r}; it has {names}")
        # An injected timeout answers 504 at once unless the test wants to wait for real.
        self.sleep_on_timeout = sleep_on_timeout
        self.calls: list[WorldCall] = []

    @property
    def tools(self) -> list[dict]:
        """The tools offered: name, description and input schema, as `tools/list` gives them."""
        return world_tools(self.world)

    def call(self, tool: str, arguments: Any = None) -> WorldCall:
        """Answer one call and record it; refused calls are answered and recorded too."""
        arguments = {} if arguments is None else arguments
        answer = refusal(self.world, tool, arguments)
        if answer is None:
            answer = base_answer(self.world, tool, arguments)
            # "The Nth call" counts the tool's calls the schema accepted, as the server does.
            nth = 1 + sum(
                1 for c in self.calls if c.tool == tool and c.status != INVALID_ARGUMENTS_STATUS
            )
            fired = fault_firing(self.world, self.variant, tool, nth, arguments)
            if fired is not None:
                answer = faulted(fired, answer)
        if answer.delay_seconds and self.sleep_on_timeout:
            time.sleep(answer.delay_seconds)
        call = WorldCall(
            sequence=len(self.calls) + 1,
            tool=tool,
            arguments=arguments,
            status=answer.status,
            body=answer.body,
            raw=answer.raw,
            recording=answer.recording,
            fault=answer.fault,
            delay_seconds=answer.delay_seconds,
            tool_turn=1 + sum(1 for c in self.calls if c.tool == tool),
        )
        self.calls.append(call)
        return call

    def __call__(self, tool: str, arguments: Any = None) -> tuple[int, str]:
        """`(status, text)`, what an agent written for the HTTP endpoint reads."""
        call = self.call(tool, arguments)
        return call.status, call.text

    def function(self, tool: str) -> Callable[..., Any]:
        """The tool as a plain function: keyword arguments in, the result out; an error
        status raises ToolCallFailed. A malformed answer comes back as the text it is."""

        def call_tool(**arguments):
            call = self.call(tool, arguments)
            if not call.ok:
                raise ToolCallFailed(call)
            return call.output

        call_tool.__name__ = tool
        call_tool.__doc__ = next((t["description"] for t in self.tools if t["name"] == tool), "")
        return call_tool

    def functions(self) -> dict[str, Callable[..., Any]]:
        """Every offered tool as a plain function, by name."""
        return {t["name"]: self.function(t["name"]) for t in self.tools}

    def steps(self) -> list[ToolStep]:
        """The calls as the trajectory checks read them (a failed call is one the world
        answered with an error status)."""
        return [
            ToolStep(
                tool=c.tool,
                inputs=c.arguments,
                output=c.output,
                failed=not c.ok,
                span_id=f"call {c.sequence}",
            )
            for c in self.calls
        ]

    def check(self, **options) -> TrajectoryCheck:
        """The calls so far against the example (options as for `trajectory_check`)."""
        return trajectory_check(self, self.example, variant=self.variant_name, **options)

    def assert_trajectory(self, **options) -> TrajectoryCheck:
        """Fail the test with an aligned diff unless the calls so far pass the example."""
        return assert_trajectory(self, self.example, variant=self.variant_name, **options)
