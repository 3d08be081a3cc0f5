"""The tools the shop's agent is given. Reads never change the database; writes check what a
real back office would (an order must still be pending to cancel) and raise ToolError.
"""

from __future__ import annotations

import ast
import copy
import operator

from bench.environments.shop.world import PRODUCTS, REASON_ALIASES, REASONS, variants_of


class ToolError(Exception):
    """A tool refused the call; the message is what the agent sees."""


# --- reads ----------------------------------------------------------------------------------


def _record(db: dict, table: str, noun: str, key) -> dict:
    """The stored row under an id as an agent may write it (spaced, in lower case)."""
    row = db[table].get(str(key).strip().upper())
    if row is None:
        raise ToolError(f"Error: no {noun} {key}.")
    return row


def _order(db: dict, order_id) -> dict:
    return _record(db, "orders", "order", order_id)


def find_customer(db: dict, email: str) -> dict:
    for customer in db["customers"].values():
        if customer["email"] == str(email).strip().lower():
            return dict(customer)
    raise ToolError(f"Error: no customer with email {email}.")


def get_customer(db: dict, customer_id: str) -> dict:
    return dict(_record(db, "customers", "customer", customer_id))


def list_orders(db: dict, customer_id: str) -> dict:
    get_customer(db, customer_id)
    return {
        "orders": [
            {
                "order_id": o["order_id"],
                "status": o["status"],
                "total": o["total"],
                "items": [i["name"] for i in o["items"]],
            }
            for o in db["orders"].values()
            if o["customer_id"] == customer_id
        ]
    }


def get_order(db: dict, order_id: str) -> dict:
    return copy.deepcopy(_order(db, order_id))


def get_payment(db: dict, payment_id: str) -> dict:
    return dict(_record(db, "payments", "payment", payment_id))


def get_product(db: dict, sku: str) -> dict:
    stem = str(sku).strip().upper().split("-")[0]
    for name, product_stem, price, variants in PRODUCTS:
        if product_stem == stem:
            return {"name": name, "price": price, "variants": [f"{stem}-{v}" for v in variants]}
    raise ToolError(f"Error: no product {sku}.")


_OPERATORS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}


def _arithmetic(node):
    if isinstance(node, ast.Expression):
        return _arithmetic(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        return _OPERATORS[type(node.op)](_arithmetic(node.left), _arithmetic(node.right))
    raise ToolError("Error: only + - * / on numbers.")


def calculate(db: dict, expression: str) -> dict:
    try:
        tree = ast.parse(str(expression), mode="eval")
    except SyntaxError as exc:
        raise ToolError(f"Error: cannot read {expression!r}.") from exc
    return {"result": round(_arithmetic(tree), 2)}


def think(db: dict, thought: str) -> None:
    """A scratchpad: it returns nothing, by design."""
    return None


# --- writes ---------------------------------------------------------------------------------


def _pending(order: dict, action: str) -> None:
    if order["status"] != "pending":
        raise ToolError(f"Error: order {order['order_id']} is {order['status']}; cannot {action}.")


def cancel_order(db: dict, order_id: str, reason: str) -> dict:
    order = _order(db, order_id)
    reason = REASON_ALIASES.get(reason, reason)
    if reason not in REASONS:
        raise ToolError(f"Error: reason must be one of {', '.join(REASONS)}.")
    _pending(order, "cancel")
    order["status"], order["cancel_reason"] = "cancelled", reason
    return {"order_id": order["order_id"], "status": "cancelled"}


def update_shipping_address(
    db: dict, order_id: str, address: str, notify_customer: bool = True
) -> dict:
    order = _order(db, order_id)
    _pending(order, "change its address")
    order["shipping_address"] = " ".join(str(address).split())
    return {"order_id": order["order_id"], "shipping_address": order["shipping_address"]}


def schedule_delivery(db: dict, order_id: str, date: str, notify_customer: bool = True) -> dict:
    order = _order(db, order_id)
    _pending(order, "schedule its delivery")
    text = str(date).strip()
    if len(text) != 10 or text[4] != "-" or text[7] != "-":
        raise ToolError("Error: date must be YYYY-MM-DD.")
    # The slot is booked for the address the order has now: re-addressing comes first.
    order["delivery"] = {"date": text, "address": order["shipping_address"]}
    return {"order_id": order["order_id"], "delivery_date": text}


def refund_order(db: dict, order_id: str, amount, reason_code: str) -> dict:
    order = _order(db, order_id)
    if isinstance(amount, bool) or not isinstance(amount, (int, float)):
        raise ToolError("Error: amount must be a number.")
    payment = db["payments"][order["payment_id"]]
    if amount <= 0 or amount > payment["amount"] - payment["refunded"] + 1e-9:
        raise ToolError(f"Error: amount must be between 0 and {payment['amount']}.")
    payment["refunded"] = round(payment["refunded"] + amount, 2)
    return {"refund_id": f"R-{order['order_id'][2:]}", "amount": amount, "status": "refunded"}


def update_email(db: dict, customer_id: str, email: str) -> dict:
    customer = _record(db, "customers", "customer", customer_id)
    customer["email"] = str(email).strip().lower()
    return {"customer_id": customer["customer_id"], "email": customer["email"]}


def exchange_item(db: dict, order_id: str, sku: str, new_sku: str) -> dict:
    order = _order(db, order_id)
    if order["status"] != "delivered":
        raise ToolError(f"Error: order {order_id} is {order['status']}; only delivered items.")
    item = next((i for i in order["items"] if i["sku"] == sku), None)
    if item is None:
        raise ToolError(f"Error: order {order_id} has no item {sku}.")
    if new_sku not in variants_of(sku):
        raise ToolError(f"Error: {new_sku} is not a variant of {sku}.")
    item["sku"] = new_sku
    return {"order_id": order["order_id"], "sku": new_sku, "status": "exchange_requested"}


def _param(kind: str, description: str = "") -> dict:
    return {"type": kind, "description": description}


def _tool(function, effect: str, returns: str | None, **input_schema: dict) -> tuple:
    """A tool's function and the definition the agent is given."""
    definition = {"effect": effect, "input_schema": input_schema}
    if returns:
        definition["returns"] = returns
    return function, definition


# The optional flag every re-booking write takes.
_NOTIFY = _param("boolean", "optional; e-mail a confirmation")

# name -> (function, definition the agent is given). Reads declare their output; think does not.
TOOLS = {
    "find_customer": _tool(find_customer, "read", "customer", email=_param("string", "e-mail")),
    "get_customer": _tool(get_customer, "read", "customer", customer_id=_param("string", "C-nnnn")),
    "list_orders": _tool(list_orders, "read", "orders", customer_id=_param("string", "C-nnnn")),
    "get_order": _tool(get_order, "read", "order", order_id=_param("string", "O-nnnn")),
    "get_payment": _tool(get_payment, "read", "payment", payment_id=_param("string", "P-nnnn")),
    "get_product": _tool(get_product, "read", "product", sku=_param("string", "any variant's sku")),
    "calculate": _tool(calculate, "read", "result", expression=_param("string", "arithmetic")),
    "think": _tool(think, "read", None, thought=_param("string", "notes")),
    "cancel_order": _tool(
        cancel_order,
        "write",
        "status",
        order_id=_param("string"),
        reason=_param("string", "|".join([*REASONS, *REASON_ALIASES])),
    ),
    "update_shipping_address": _tool(
        update_shipping_address,
        "write",
        "order",
        order_id=_param("string"),
        address=_param("string"),
        notify_customer=_NOTIFY,
    ),
    "schedule_delivery": _tool(
        schedule_delivery,
        "write",
        "order",
        order_id=_param("string"),
        date=_param("string", "YYYY-MM-DD"),
        notify_customer=_NOTIFY,
    ),
    "refund_order": _tool(
        refund_order,
        "write",
        "refund",
        order_id=_param("string"),
        amount=_param("number"),
        reason_code=_param("string"),
    ),
    "update_email": _tool(
        update_email, "write", "customer", customer_id=_param("string"), email=_param("string")
    ),
    "exchange_item": _tool(
        exchange_item,
        "write",
        "exchange",
        order_id=_param("string"),
        sku=_param("string"),
        new_sku=_param("string"),
    ),
}


WRITES = {name for name, (_fn, definition) in TOOLS.items() if definition["effect"] == "write"}


def tool_definitions() -> list[dict]:
    """The tool list the agent is given, in the shape evalsite reads (`available_tools`).

    The effect stays the shop's own knowledge: evalsite infers it from names and definitions.
    """
    return [
        {"name": name, **{k: v for k, v in definition.items() if k != "effect"}}
        for name, (_fn, definition) in TOOLS.items()
    ]


def tool_call(db: dict, name: str, arguments: dict):
    """Run one tool on `db`; a ToolError is the tool's refusal."""
    function = TOOLS[name][0]
    try:
        return function(db, **arguments)
    except TypeError as exc:
        raise ToolError(f"Error: bad arguments for {name}: {exc}.") from exc
