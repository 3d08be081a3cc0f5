"""Function-calling tasks with answer keys, and model calls labelled right or wrong.

Written for evalsite, in the form function-calling benchmarks use: a question, the tools the
model was given, an answer key (each parameter: its list of accepted values, "" meaning it may
be left out) and a run of calls. Every task is drawn from a seed, so a seed can be held back
from every tuning loop. Each task yields one labelled run per kind that applies to it:

right: exact, accepted_alternative, optional_omitted, int_float, parallel_any_order (several
calls of one tool), derived_date, derived_amount, value_in_words, retry_after_error,
extra_lookup.
wrong: wrong_value (right type), ungrounded (an id the question never gave), missing_call,
extra_write, giving_up (no call; the answer claims the work is done).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, timedelta

RIGHT_KINDS = (
    "exact",
    "accepted_alternative",
    "optional_omitted",
    "int_float",
    "parallel_any_order",
    "derived_date",
    "derived_amount",
    "value_in_words",
    "retry_after_error",
    "extra_lookup",
)
WRONG_KINDS = ("wrong_value", "ungrounded", "missing_call", "extra_write", "giving_up")
CITIES = [
    ("San Francisco", "SF"),
    ("New York City", "NYC"),
    ("Los Angeles", "LA"),
    ("Buenos Aires", "BA"),
    ("Kuala Lumpur", "KL"),
    ("Rio de Janeiro", "Rio"),
]
WORDS = ["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "twelve"]
WORD_VALUES = [2, 3, 4, 5, 6, 7, 8, 9, 10, 12]
SYMBOLS = ["ACME", "GLOBX", "INITECH", "UMBRL", "WAYNE", "STARK", "OSCRP", "TYRLL"]
RESTAURANTS = ["Casa Lupa", "The Green Fig", "Osteria Nove", "Blue Lantern", "Koji House"]
MONTHS = "January February March April May June July August September October November December"


def _tool(name: str, params: dict, returns: str = "") -> dict:
    definition = {"name": name, "parameters": {"type": "object", "properties": params}}
    if returns:
        definition["returns"] = returns
    return definition


WEATHER = _tool("get_weather", {"city": {}, "unit": {}}, "the forecast")
STOCK = _tool("get_stock_price", {"symbol": {}}, "the price")
RESERVATION = _tool("get_reservation", {"reservation_id": {}}, "the reservation")
MOVE = _tool("update_reservation", {"reservation_id": {}, "date": {}})
REFUND = _tool("refund_order", {"order_id": {}, "amount": {}})
BOOK = _tool("book_table", {"restaurant": {}, "party_size": {}, "date": {}, "note": {}})
ORDER = _tool("get_order", {"order_id": {}}, "the order")


@dataclass
class Call:
    tool: str
    args: dict
    output: object = None
    error: str = ""


@dataclass
class Case:
    """One labelled run of a task: the model's calls and its answer."""

    task_key: str
    kind: str
    right: bool
    calls: list[Call]
    answer: str


@dataclass
class Task:
    key: str
    question: str
    tools: list[dict]
    answer_key: list[dict]
    cases: list[Case] = field(default_factory=list)

    def case(self, kind: str, calls: list[Call], answer: str) -> None:
        self.cases.append(Case(self.key, kind, kind in RIGHT_KINDS, calls, answer))


def _spoken(day: date) -> str:
    return f"{MONTHS.split()[day.month - 1]} {day.day}, {day.year}"


def _weather(key: str, rng: random.Random) -> Task:
    full, short = rng.choice(CITIES)
    other = rng.choice([c for c in CITIES if c[0] != full])[0]
    unit_asked = rng.random() < 0.4
    question = f"What's the weather like in {full} today" + (" in celsius?" if unit_asked else "?")
    unit = ["celsius"] if unit_asked else ["", "celsius", "fahrenheit"]
    task = Task(key, question, [WEATHER], [{"get_weather": {"city": [full, short], "unit": unit}}])
    forecast = {"city": full, "temperature": rng.randint(8, 30), "sky": "clear"}
    args = {"city": full, "unit": "celsius"}
    said = f"It is {forecast['temperature']} degrees and clear in {full}."
    task.case("exact", [Call("get_weather", args, forecast)], said)
    task.case(
        "accepted_alternative", [Call("get_weather", {**args, "city": short}, forecast)], said
    )
    if not unit_asked:
        task.case("optional_omitted", [Call("get_weather", {"city": full}, forecast)], said)
    task.case(
        "retry_after_error",
        [
            Call(
                "get_weather",
                {"city": full, "unit": "C"},
                error="unit must be celsius or fahrenheit",
            ),
            Call("get_weather", args, forecast),
        ],
        said,
    )
    task.case("wrong_value", [Call("get_weather", {**args, "city": other}, forecast)], said)
    task.case("missing_call", [], f"It is usually mild in {full} at this time of year.")
    return task


def _stocks(key: str, rng: random.Random) -> Task:
    first, second = rng.sample(SYMBOLS, 2)
    wrong = rng.choice([s for s in SYMBOLS if s not in (first, second)])
    question = f"What are the current stock prices of {first} and {second}?"
    key_calls = [{"get_stock_price": {"symbol": [s]}} for s in (first, second)]
    task = Task(key, question, [STOCK], key_calls)
    prices = {s: round(rng.uniform(20, 400), 2) for s in (first, second, wrong)}

    def look(symbol):
        return Call(
            "get_stock_price", {"symbol": symbol}, {"symbol": symbol, "price": prices[symbol]}
        )

    said = f"{first} trades at {prices[first]} and {second} at {prices[second]}."
    task.case("exact", [look(first), look(second)], said)
    task.case("parallel_any_order", [look(second), look(first)], said)
    task.case("wrong_value", [look(first), look(wrong)], said)
    task.case("missing_call", [look(first)], said)
    return task


def _move(key: str, rng: random.Random) -> Task:
    reservation = f"R-{rng.randint(1000, 9999)}"
    booked = date(2026, 1, 1) + timedelta(days=rng.randint(0, 330))
    shift = rng.choice([1, 7, 14])
    said_shift = {1: "the next day", 7: "a week later", 14: "two weeks later"}[shift]
    question = f"Please move reservation {reservation} to {said_shift}."
    target = booked + timedelta(days=shift)
    key_calls = [
        {"get_reservation": {"reservation_id": [reservation]}},
        {"update_reservation": {"reservation_id": [reservation], "date": [target.isoformat()]}},
    ]
    task = Task(key, question, [RESERVATION, MOVE], key_calls)
    lookup = Call(
        "get_reservation",
        {"reservation_id": reservation},
        {"reservation_id": reservation, "date": booked.isoformat(), "guests": 2},
    )

    def move(day: date, rid: str = reservation):
        return Call(
            "update_reservation", {"reservation_id": rid, "date": day.isoformat()}, {"ok": True}
        )

    said = f"Done: reservation {reservation} is now on {_spoken(target)}."
    task.case("derived_date", [lookup, move(target)], said)
    task.case(
        "retry_after_error",
        [
            lookup,
            Call(
                "update_reservation",
                {
                    "reservation_id": reservation,
                    "date": f"{target.day}/{target.month}/{target.year}",
                },
                error="date must be YYYY-MM-DD",
            ),
            move(target),
        ],
        said,
    )
    task.case("wrong_value", [lookup, move(target + timedelta(days=1))], said)
    fake = f"R-{rng.randint(1000, 9999)}"
    task.case("ungrounded", [lookup, move(target, fake)], said)
    task.case("giving_up", [lookup], f"All set, reservation {reservation} is taken care of.")
    return task


def _refund(key: str, rng: random.Random) -> Task:
    order = f"O-{rng.randint(10000, 99999)}"
    other = f"O-{rng.randint(10000, 99999)}"
    item = round(rng.uniform(10, 90), 2)
    shipping = rng.choice([3.5, 4.99, 5.0, 7.25])
    total = round(item + shipping, 2)
    question = (
        f"Please refund order {order} in full: the item was {item:.2f} and shipping {shipping:.2f}."
    )
    key_calls = [{"refund_order": {"order_id": [order], "amount": [total]}}]
    task = Task(key, question, [ORDER, REFUND], key_calls)

    def refund(amount, oid: str = order):
        return Call("refund_order", {"order_id": oid, "amount": amount}, {"refunded": amount})

    said = f"I've refunded {total:.2f} for order {order}."
    task.case("derived_amount", [refund(total)], said)
    task.case("exact", [refund(f"{total:.2f}")], said)
    task.case(
        "extra_lookup",
        [Call("get_order", {"order_id": order}, {"order_id": order, "paid": total}), refund(total)],
        said,
    )
    if float(total).is_integer():
        task.case("int_float", [refund(int(total))], said)
    task.case("wrong_value", [refund(item)], said)
    task.case("extra_write", [refund(total), refund(shipping, other)], said)
    task.case("ungrounded", [refund(total, other)], said)
    task.case("giving_up", [], f"Your refund for order {order} is on its way.")
    return task


def _table(key: str, rng: random.Random) -> Task:
    restaurant = rng.choice(RESTAURANTS)
    index = rng.randrange(len(WORDS))
    day = date(2026, 1, 1) + timedelta(days=rng.randint(0, 330))
    question = f"Book a table at {restaurant} for {WORDS[index]} people on {_spoken(day)}."
    size = WORD_VALUES[index]
    key_calls = [
        {
            "book_table": {
                "restaurant": [restaurant],
                "party_size": [size],
                "date": [day.isoformat()],
                "note": [""],
            }
        }
    ]
    task = Task(key, question, [BOOK], key_calls)

    def book(party, when: date = day, **extra):
        args = {"restaurant": restaurant, "party_size": party, "date": when.isoformat(), **extra}
        return Call("book_table", args, {"booking": f"B{rng.randint(100, 999)}"})

    said = f"Booked {restaurant} for {size} on {_spoken(day)}."
    task.case("value_in_words", [book(size)], said)
    task.case("int_float", [book(float(size))], said)
    task.case("optional_omitted", [book(size)], said)
    task.case("exact", [book(size, note="")], said)
    task.case("wrong_value", [book(size + 1)], said)
    task.case("extra_write", [book(size), book(size, day + timedelta(days=7))], said)
    task.case("giving_up", [], f"Your table at {restaurant} is booked.")
    return task


TEMPLATES = (_weather, _stocks, _move, _refund, _table)


def tasks_draw(seed: int, per_template: int = 8) -> list[Task]:
    """The tasks of one seed: `per_template` of each template, with their labelled runs."""
    rng = random.Random(seed)
    return [
        template(f"s{seed}-{template.__name__.strip('_')}-{n}", rng)
        for template in TEMPLATES
        for n in range(per_template)
    ]
