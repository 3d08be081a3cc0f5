"""A scripted support agent with a seeded random policy, run against the shop's database.

Correct runs vary the way real agents do: optional lookups skipped or extra ones made, a
scratchpad `think`, independent writes in another order, a retry after a transient tool
error or a malformed argument, a clarifying question, a follow-up turn after the answer.
A failing run has one failure injected, named in `Run.failure`. The reward is the shop's:
did the database end in the task's expected state.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

from bench.environments.shop import tools, world
from bench.environments.shop.tasks import Step, Task

FAILURES = (
    "extra_write",
    "wrong_argument",
    "missing_write",
    "write_before_lookup",
    "giving_up",
    "hallucinated_id",
    "wrong_order",
)
TRANSIENT = "Error: service temporarily unavailable (503), please retry."


@dataclass
class Run:
    task: Task
    trial: int
    failure: str
    messages: list[dict]
    reward: bool
    variations: list[str] = field(default_factory=list)


@dataclass
class _Conversation:
    messages: list[dict] = field(default_factory=list)
    next_id: int = 0

    def user(self, text: str) -> None:
        self.messages.append({"role": "user", "content": text})

    def say(self, text: str) -> None:
        self.messages.append({"role": "assistant", "content": [{"type": "text", "text": text}]})

    def call(self, tool: str, args: dict, output=None, error: str = "", note: str = "") -> None:
        self.next_id += 1
        call_id = f"toolu_{self.next_id:03d}"
        blocks = [{"type": "text", "text": note}] if note else []
        blocks.append({"type": "tool_use", "id": call_id, "name": tool, "input": args})
        self.messages.append({"role": "assistant", "content": blocks})
        result = {"type": "tool_result", "tool_use_id": call_id}
        if error:
            result.update(content=error, is_error=True)
        else:
            result["content"] = "" if output is None else json.dumps(output)
        self.messages.append({"role": "user", "content": [result]})


def failures_for(task: Task) -> list[str]:
    """The failures that can happen on a task: a task that writes nothing can only gain one."""
    if not task.writes:
        return ["extra_write"]
    kinds = ["extra_write", "wrong_argument", "missing_write", "giving_up", "hallucinated_id"]
    if task.claimed:
        kinds += ["write_before_lookup"] * 3
    if any(s.after for s in task.writes):
        kinds += ["wrong_order"] * 3
    return kinds


def _orders_of(db: dict, customer_id: str, status: str | None = None) -> list[str]:
    return [
        o["order_id"]
        for o in db["orders"].values()
        if o["customer_id"] == customer_id and status in (None, o["status"])
    ]


def _with_order_list(task: Task, steps: list[Step]) -> list[Step]:
    """Make sure the customer's orders were listed before the first write, so the ids seen."""
    if any(s.tool == "list_orders" for s in steps):
        return steps
    first_write = next((i for i, s in enumerate(steps) if s.write), len(steps))
    listing = Step("list_orders", {"customer_id": task.customer_id})
    return steps[:first_write] + [listing] + steps[first_write:]


def _another_value(db: dict, task: Task, name: str, value, rng: random.Random):
    """A wrong but plausible value for one argument, one a careless agent would pass."""
    if name == "amount":
        order = db["orders"][task.writes[0].args["order_id"]]
        return order["total"] if abs(order["total"] - value) > 0.001 else value + 1.0
    if name == "date":
        return value[:8] + f"{int(value[8:]) % 28 + 1:02d}"
    if name == "address":
        number, rest = value.split(" ", 1)
        return f"{int(number) + rng.randint(1, 9)} {rest}"
    if name == "new_sku":
        others = [v for v in world.variants_of(value) if v != value]
        return rng.choice(others) if others else value + "X"
    if name == "email":
        local, domain = value.split("@")
        return f"{local[:-1]}{(int(local[-1]) + 1) % 10}@{domain}"
    if name == "reason":
        return rng.choice([r for r in world.REASONS if r != value])
    return value


def _wrong_argument(db, task, steps, rng):
    write = rng.choice([s for s in steps if s.write])
    args = dict(write.args)
    names = [n for n in ("amount", "date", "address", "new_sku", "email") if n in args]
    if names:
        name = names[0]
        args[name] = _another_value(db, task, name, args[name], rng)
    else:
        # The wrong one of the customer's own orders, in the same state so the write goes through.
        status = db["orders"][args["order_id"].upper()]["status"]
        taken = {s.args.get("order_id") for s in task.writes}
        others = [o for o in _orders_of(db, task.customer_id, status) if o not in taken]
        if others:
            args["order_id"] = rng.choice(others)
            steps = _with_order_list(task, steps)
        else:
            args["reason"] = _another_value(db, task, "reason", args["reason"], rng)
    index = steps.index(write)
    return steps[:index] + [Step(write.tool, args)] + steps[index + 1 :]


def _extra_write(db, task, steps, rng):
    steps = _with_order_list(task, steps)
    taken = {s.args.get("order_id") for s in task.writes}
    pending = [o for o in _orders_of(db, task.customer_id, "pending") if o not in taken]
    if pending:
        extra = Step(
            "cancel_order", {"order_id": rng.choice(pending), "reason": "no_longer_needed"}
        )
    else:
        delivered = _orders_of(db, task.customer_id, "delivered")[0]
        extra = Step(
            "refund_order",
            {"order_id": delivered, "amount": world.SHIPPING_FEE, "reason_code": world.DAMAGE_CODE},
        )
    return steps + [extra]


def _hallucinated_id(db, task, steps, rng):
    write = rng.choice([s for s in steps if s.write])
    args = dict(write.args)
    if "order_id" in args:
        mine = set(_orders_of(db, task.customer_id))
        number = int(args["order_id"][2:])
        guesses = [f"O-{number + d}" for d in (1, -1, 2, 10, -10, 25)]
        args["order_id"] = rng.choice([g for g in guesses if g not in mine])
    else:
        number = int(args["customer_id"][2:])
        args["customer_id"] = f"C-{number + rng.choice([1, 2, 5, 40])}"
    index = steps.index(write)
    return steps[:index] + [Step(write.tool, args)] + steps[index + 1 :]


def _reformatted(args: dict) -> dict:
    """The same values written the way agents also write them; the shop's tools accept them."""
    args = dict(args)
    if "email" in args:
        local, domain = args["email"].split("@")
        args["email"] = f"{local.title()}@{domain.upper()}"
    elif "address" in args:
        args["address"] = "  ".join(args["address"].split(" ")) + " "
    elif "order_id" in args:
        args["order_id"] = args["order_id"].lower()
    return args


def _steps_for(db, task: Task, failure: str, rng: random.Random, notes: list[str]) -> list[Step]:
    steps = [s for s in task.plan if not (s.optional and rng.random() < 0.5)]
    if len(steps) < len(task.plan):
        notes.append("skipped_lookup")
    if rng.random() < 0.3:
        first_write = next((i for i, s in enumerate(steps) if s.write), len(steps))
        ids = [s.args["order_id"] for s in task.plan if "order_id" in s.args]
        if ids and first_write > 0:
            steps.insert(first_write, Step("get_order", {"order_id": ids[0]}))
            notes.append("extra_lookup")
    if rng.random() < 0.3 and task.writes:
        first_write = next(i for i, s in enumerate(steps) if s.write)
        steps.insert(first_write, Step("think", {"thought": "Checked the records; now act."}))
        notes.append("think")
    if task.independent_writes and rng.random() < 0.5:
        writes = [s for s in steps if s.write]
        reads = [s for s in steps if not s.write]
        steps = reads + writes[::-1]
        notes.append("writes_reordered")
    if task.writes and rng.random() < 0.25:
        write = rng.choice([s for s in steps if s.write])
        index = steps.index(write)
        steps = steps[:index] + [Step(write.tool, _reformatted(write.args))] + steps[index + 1 :]
        notes.append("reformatted_argument")
    steps = [_optional_variation(step, rng, notes) for step in steps]
    if failure == "extra_write":
        steps = _extra_write(db, task, steps, rng)
    elif failure == "wrong_argument":
        steps = _wrong_argument(db, task, steps, rng)
    elif failure == "missing_write":
        last = [s for s in steps if s.write][-1]
        steps = [s for s in steps if s is not last]
    elif failure == "write_before_lookup":
        write = task.writes[0]
        rushed = Step(write.tool, {**write.args, **task.claimed})
        steps = [rushed] + [s for s in steps if s is not write]
    elif failure == "giving_up":
        first_write = next(i for i, s in enumerate(steps) if s.write)
        steps = steps[:first_write]
    elif failure == "hallucinated_id":
        steps = _hallucinated_id(db, task, steps, rng)
    elif failure == "wrong_order":
        writes = [s for s in steps if s.write]
        steps = [s for s in steps if not s.write] + writes[::-1]
    return steps


NOTIFYING = ("update_shipping_address", "schedule_delivery")
ALIASES = {canonical: alias for alias, canonical in world.REASON_ALIASES.items()}


def _optional_variation(step: Step, rng: random.Random, notes: list[str]) -> Step:
    """What real correct calls do with a tool's leeway: another accepted name for a reason, or
    an optional parameter given (left out otherwise)."""
    if step.tool == "cancel_order" and rng.random() < 0.3:
        notes.append("accepted_alternative")
        return Step(step.tool, {**step.args, "reason": ALIASES[step.args["reason"]]})
    if step.tool in NOTIFYING and rng.random() < 0.4:
        notes.append("optional_parameter_given")
        return Step(step.tool, {**step.args, "notify_customer": rng.random() < 0.5})
    return step


def _malformed(step: Step) -> dict | None:
    """The argument a hasty first attempt gets wrong, which the tool then refuses."""
    if step.tool == "refund_order":
        return {**step.args, "amount": f"{step.args['amount']:.2f} GBP"}
    if step.tool == "schedule_delivery":
        year, month, day = step.args["date"].split("-")
        return {**step.args, "date": f"{int(day)}/{int(month)}/{year}"}
    return None


def _act(db, convo: _Conversation, step: Step, rng, notes: list[str], retry: bool) -> str:
    """Make one call; a correct agent retries after a transient error or a refused argument."""
    if retry and step.tool != "think" and rng.random() < 0.12:
        convo.call(step.tool, step.args, error=TRANSIENT)
        notes.append("transient_retry")
    malformed = _malformed(step)
    if retry and malformed and rng.random() < 0.35:
        try:
            tools.tool_call(db, step.tool, malformed)
        except tools.ToolError as exc:
            convo.call(step.tool, malformed, error=str(exc))
            notes.append("argument_retry")
    note = rng.choice(["", "", "Let me check that.", "One moment."]) if not step.write else ""
    try:
        output = tools.tool_call(db, step.tool, step.args)
    except tools.ToolError as exc:
        convo.call(step.tool, step.args, error=str(exc), note=note)
        return str(exc)
    convo.call(step.tool, step.args, output=output, note=note)
    return ""


def run_episode(task: Task, base_db: dict, trial: int, failure: str, seed: int) -> Run:
    """One conversation of the agent on a fresh copy of the world; the shop scores it."""
    rng = random.Random(seed)
    db = world.world_copy(base_db)
    notes: list[str] = []
    convo = _Conversation()
    convo.user(task.turns[0])
    for later in task.turns[1:]:
        convo.say("Happy to help. Which e-mail address is your account under?")
        convo.user(later)
        notes.append("clarification")
    errors = []
    for step in _steps_for(db, task, failure, rng, notes):
        errors.append(_act(db, convo, step, rng, notes, retry=failure != "giving_up"))
    if failure == "giving_up":
        # Some agents that give up say so; others stop and claim the work is done.
        convo.say(
            rng.choice(
                [
                    "I'm sorry, I'm not able to complete this request right now. Please contact "
                    "our support team by phone.",
                    "Unfortunately I can't make that change from here; a colleague will follow "
                    "up by e-mail.",
                    "All sorted! You'll receive a confirmation e-mail shortly.",
                ]
            )
        )
    elif rng.random() < 0.04 and not failure:
        convo.say("All sorted. Is there anything else I can help with?")
        notes.append("terse_answer")
    else:
        convo.say(rng.choice(["", "Thanks for waiting! ", "All done. "]) + task.answer)
    if rng.random() < 0.25:
        convo.user("Great, thanks a lot!")
        convo.say("You're welcome, have a nice day!")
        notes.append("follow_up_turn")
    reward = world.state_equal(db, task.expected_state)
    return Run(task, trial, failure, convo.messages, reward, notes)


def runs_generate(tasks: list[Task], base_db: dict, per_task: int, seed: int) -> list[Run]:
    """`per_task` runs of every task; about 45% of them get one injected failure."""
    rng = random.Random(seed)
    runs = []
    for task in tasks:
        for trial in range(per_task):
            failure = rng.choice(failures_for(task)) if rng.random() < 0.45 else ""
            runs.append(run_episode(task, base_db, trial, failure, rng.randrange(2**31)))
    return runs
