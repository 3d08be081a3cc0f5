"""The shop's tasks: what a customer asks, the plan that does it, and the state it must end in.

A task's expected state is the seeded world with the task's expected writes applied by the
same tools the agent uses, so the reward never depends on evalsite.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from bench.environments.shop import tools, world

MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
REASON_WORDS = {
    "ordered_by_mistake": "I ordered it by mistake",
    "no_longer_needed": "I don't need it any more",
    "found_cheaper": "I found it cheaper elsewhere",
}


@dataclass
class Step:
    """One call of a task's plan. `optional` reads may be skipped by a correct agent."""

    tool: str
    args: dict
    optional: bool = False
    after: list[int] = field(default_factory=list)

    @property
    def write(self) -> bool:
        return self.tool in tools.WRITES


@dataclass
class Task:
    key: str
    family: str
    customer_id: str
    turns: list[str]  # the first request, then the answer to the agent's question if any
    context: dict
    plan: list[Step]
    outcome: str  # the facts a good answer states
    answer: str  # how the agent says it did it
    # Arguments the customer asserts that the records contradict (checked only by a lookup).
    claimed: dict = field(default_factory=dict)
    independent_writes: bool = False
    expected_state: dict = field(default_factory=dict)

    @property
    def writes(self) -> list[Step]:
        return [s for s in self.plan if s.write]

    def prerequisite(self, write: Step) -> str:
        """The lookup that must come before a write: the last required read before it."""
        index = self.plan.index(write)
        reads = [s for s in self.plan[:index] if not s.write and not s.optional]
        return reads[-1].tool if reads else ""


def _customer_orders(db, customer_id, status=None):
    return [
        o
        for o in db["orders"].values()
        if o["customer_id"] == customer_id and (status is None or o["status"] == status)
    ]


def _identify(db, c, rng, logged_in: bool) -> tuple[str, list[Step], list[str], dict]:
    """How the customer is identified: a logged-in chat knows the id, else the e-mail, given
    at once or when the agent asks."""
    if logged_in:
        verify = Step("get_customer", {"customer_id": c["customer_id"]}, optional=True)
        return "", [verify], [], {"customer_id": c["customer_id"]}
    steps = [Step("find_customer", {"email": c["email"]})]
    if rng.random() < 0.4:
        return "", steps, [f"Sure, it's {c['email']}."], {}
    return f" My e-mail is {c['email']}.", steps, [], {}


def _asked_by_item(db, c, rng, logged_in, request: str, writes: list[Step], **spec) -> dict:
    """A task where the customer names the item, not the order: the agent identifies them and
    lists their orders before any write."""
    who, ident, later, context = _identify(db, c, rng, logged_in)
    return dict(
        turns=[f"{request}{who}", *later],
        context=context,
        plan=[*ident, Step("list_orders", {"customer_id": c["customer_id"]}), *writes],
        **spec,
    )


def _cancel_one(db, c, rng, logged_in):
    order = rng.choice(_customer_orders(db, c["customer_id"], "pending"))
    item = order["items"][0]["name"]
    reason = rng.choice(world.REASONS)
    return _asked_by_item(
        db,
        c,
        rng,
        logged_in,
        f"Hi, please cancel my {item} order, {REASON_WORDS[reason]}.",
        [Step("cancel_order", {"order_id": order["order_id"], "reason": reason})],
        outcome=f"Order {order['order_id']} ({item}) is cancelled.",
        answer=f"I've cancelled order {order['order_id']} for the {item}; you won't be charged.",
    )


def _cancel_two(db, c, rng, logged_in):
    first, second = _customer_orders(db, c["customer_id"], "pending")[:2]
    names = [first["items"][0]["name"], second["items"][0]["name"]]
    return _asked_by_item(
        db,
        c,
        rng,
        logged_in,
        f"Cancel both the {names[0]} and the {names[1]}, I don't need them any more.",
        [
            Step("cancel_order", {"order_id": first["order_id"], "reason": "no_longer_needed"}),
            Step("cancel_order", {"order_id": second["order_id"], "reason": "no_longer_needed"}),
        ],
        independent_writes=True,
        outcome=f"Orders {first['order_id']} and {second['order_id']} are cancelled.",
        answer=f"Both orders are cancelled: {first['order_id']} ({names[0]}) and "
        f"{second['order_id']} ({names[1]}).",
    )


def _refund_damaged(db, c, rng, logged_in):
    order = _customer_orders(db, c["customer_id"], "delivered")[0]
    item = order["items"][0]
    amount = round(item["price"] * item["quantity"], 2)
    plan = [Step("get_order", {"order_id": order["order_id"]})]
    if item["quantity"] > 1:
        plan.append(
            Step(
                "calculate", {"expression": f"{item['price']} * {item['quantity']}"}, optional=True
            )
        )
    plan.append(
        Step(
            "refund_order",
            {"order_id": order["order_id"], "amount": amount, "reason_code": world.DAMAGE_CODE},
        )
    )
    return dict(
        turns=[
            f"My {item['name']} from order {order['order_id']} arrived broken. I paid "
            f"{order['total']:.2f} for it, I want that back."
        ],
        context={"customer_id": c["customer_id"]} if logged_in else {},
        plan=plan,
        claimed={"amount": order["total"]},
        outcome=f"Refund of {amount:.2f} for order {order['order_id']}.",
        answer=f"I've refunded {amount:.2f} for the {item['name']} on order {order['order_id']}"
        f" (shipping of {world.SHIPPING_FEE:.2f} isn't refundable).",
    )


def _change_address(db, c, rng, logged_in):
    order = rng.choice(_customer_orders(db, c["customer_id"], "pending"))
    item = order["items"][0]["name"]
    address = world.address_make(rng)
    return _asked_by_item(
        db,
        c,
        rng,
        logged_in,
        f"I've just moved. Please send my {item} to {address} instead.",
        [Step("update_shipping_address", {"order_id": order["order_id"], "address": address})],
        outcome=f"Order {order['order_id']} now ships to {address}.",
        answer=f"Done: order {order['order_id']} ({item}) will now go to {address}.",
    )


def _update_email(db, c, rng, logged_in):
    local = c["email"].split("@")[0]
    new = f"{local}{rng.randint(10, 99)}@mailbox.org"
    plan = [
        Step("find_customer", {"email": c["email"]}),
        Step("update_email", {"customer_id": c["customer_id"], "email": new}),
    ]
    return dict(
        turns=[f"Please change my e-mail from {c['email']} to {new}."],
        context={},
        plan=plan,
        outcome=f"Account e-mail changed to {new}.",
        answer=f"Your account e-mail is now {new}.",
    )


def _exchange(db, c, rng, logged_in):
    orders = [
        o
        for o in _customer_orders(db, c["customer_id"], "delivered")
        if len(world.variants_of(o["items"][0]["sku"])) > 1
    ]
    if not orders:
        return None
    order = orders[0]
    item = order["items"][0]
    new_sku = rng.choice([v for v in world.variants_of(item["sku"]) if v != item["sku"]])
    variant = new_sku.split("-")[1]
    plan = [
        Step("get_order", {"order_id": order["order_id"]}),
        Step("get_product", {"sku": item["sku"]}),
        Step(
            "exchange_item", {"order_id": order["order_id"], "sku": item["sku"], "new_sku": new_sku}
        ),
    ]
    return dict(
        turns=[
            f"The {item['name']} in order {order['order_id']} is wrong, could I swap it for "
            f"the {variant} one?"
        ],
        context={"customer_id": c["customer_id"]} if logged_in else {},
        plan=plan,
        outcome=f"Exchange of {item['sku']} for {new_sku} on order {order['order_id']}.",
        answer=f"I've requested the exchange on order {order['order_id']}: {item['sku']} "
        f"goes back and {new_sku} is on its way.",
    )


def _delivery_date(rng) -> tuple[str, str]:
    """A delivery day and how the customer says it: the day itself, or a shift from another
    day ("the day after June 3", "a week after June 3"), which the agent must work out."""
    month, day = rng.randint(4, 9), rng.randint(8, 28)
    shift = rng.choice([0, 0, 1, 7])
    said = day - shift
    words = rng.choice([f"{MONTHS[month - 1]} {said}", f"the {said} of {MONTHS[month - 1]}"])
    if shift:
        words = f"{'the day' if shift == 1 else 'a week'} after {words}"
    return f"2026-{month:02d}-{day:02d}", words


def _schedule(db, c, rng, logged_in):
    order = rng.choice(_customer_orders(db, c["customer_id"], "pending"))
    date, words = _delivery_date(rng)
    plan = [
        Step("get_order", {"order_id": order["order_id"]}),
        Step("schedule_delivery", {"order_id": order["order_id"], "date": date}),
    ]
    return dict(
        turns=[f"Can order {order['order_id']} be delivered on {words}?"],
        context={"customer_id": c["customer_id"]} if logged_in else {},
        plan=plan,
        outcome=f"Order {order['order_id']} is booked for delivery on {date}.",
        answer=f"Order {order['order_id']} is booked for delivery on {date}.",
    )


def _status(db, c, rng, logged_in):
    order = rng.choice(_customer_orders(db, c["customer_id"]))
    item = order["items"][0]["name"]
    return _asked_by_item(
        db,
        c,
        rng,
        logged_in,
        f"Where is my {item}? I haven't heard anything.",
        [],
        outcome=f"Order {order['order_id']} is {order['status']}.",
        answer=f"Your {item} (order {order['order_id']}) is {order['status']}.",
    )


def _move_then_deliver(db, c, rng, logged_in):
    order = rng.choice(_customer_orders(db, c["customer_id"], "pending"))
    address = world.address_make(rng)
    date, words = _delivery_date(rng)
    plan = [
        Step("get_order", {"order_id": order["order_id"]}),
        Step("update_shipping_address", {"order_id": order["order_id"], "address": address}),
        Step("schedule_delivery", {"order_id": order["order_id"], "date": date}, after=[2]),
    ]
    return dict(
        turns=[
            f"Order {order['order_id']} should go to my new place, {address}, and please "
            f"book the delivery for {words}."
        ],
        context={"customer_id": c["customer_id"]} if logged_in else {},
        plan=plan,
        outcome=f"Order {order['order_id']} ships to {address} on {date}.",
        answer=f"Order {order['order_id']} now ships to {address}, delivery booked for {date}.",
    )


FAMILIES = {
    "cancel_one": (_cancel_one, 8),
    "cancel_two": (_cancel_two, 5),
    "refund_damaged": (_refund_damaged, 8),
    "change_address": (_change_address, 6),
    "update_email": (_update_email, 5),
    "exchange": (_exchange, 5),
    "schedule": (_schedule, 4),
    "status": (_status, 5),
    "move_then_deliver": (_move_then_deliver, 3),
}


def expected_state(db: dict, task: Task) -> dict:
    """The world after the task's writes, made by the shop's own tools."""
    state = world.world_copy(db)
    for step in task.writes:
        tools.tool_call(state, step.tool, step.args)
    return state


def tasks_create(db: dict, seed: int = 11) -> list[Task]:
    """Forty-nine tasks over the seeded world, each with its expected final state."""
    rng = random.Random(seed)
    tasks: list[Task] = []
    customers = list(db["customers"].values())
    for family, (build, count) in FAMILIES.items():
        made = 0
        for customer in rng.sample(customers, len(customers)):
            if made == count:
                break
            spec = build(db, customer, rng, rng.random() < 0.35)
            if spec is None:
                continue
            made += 1
            task = Task(
                key=f"shop-{family}-{made:02d}",
                family=family,
                customer_id=customer["customer_id"],
                **spec,
            )
            task.expected_state = expected_state(db, task)
            tasks.append(task)
    return tasks
