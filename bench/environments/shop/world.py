"""A small online shop's database: customers, orders and payments, made from a seed.

The database is plain dicts so a run can copy it, change it through the tools
(`tools.py`), and compare the result with the state a task expects.
"""

from __future__ import annotations

import copy
import random

SHIPPING_FEE = 4.95
REASONS = ("ordered_by_mistake", "no_longer_needed", "found_cheaper")
# Other names the back office accepts for the same reason (an answer key's alternatives).
REASON_ALIASES = {"mistake": "ordered_by_mistake", "not_needed": "no_longer_needed",
                  "cheaper_elsewhere": "found_cheaper"}  # fmt: skip
DAMAGE_CODE = "DMG-01"

# (product name, sku stem, price, variants)
PRODUCTS = [
    ("desk lamp", "LMP", 34.90, ("BLK", "WHT")),
    ("electric kettle", "KTL", 47.45, ("STL", "RED")),
    ("running shoes", "SHO", 89.00, ("40", "41", "42", "43")),
    ("rain jacket", "JKT", 119.00, ("S", "M", "L", "XL")),
    ("coffee grinder", "GRD", 62.30, ("BLK",)),
    ("yoga mat", "MAT", 25.99, ("BLU", "GRN")),
    ("wool sweater", "SWT", 74.50, ("S", "M", "L")),
    ("headphones", "HPH", 139.99, ("BLK", "SLV")),
    ("backpack", "BPK", 58.00, ("GRY", "NVY")),
    ("water bottle", "BTL", 18.75, ("500", "750")),
]
FIRST = [
    "Ana",
    "Ben",
    "Chloe",
    "Dev",
    "Elena",
    "Farid",
    "Grace",
    "Hugo",
    "Iris",
    "Jonas",
    "Kemi",
    "Luca",
    "Mina",
    "Noah",
]
LAST = [
    "Silva",
    "Okafor",
    "Martin",
    "Patel",
    "Novak",
    "Haddad",
    "Kim",
    "Berg",
    "Rossi",
    "Lindqvist",
    "Adeyemi",
    "Conti",
    "Sato",
    "Walsh",
]
STREETS = [
    "Harbour Road",
    "Mill Lane",
    "Station Street",
    "Elm Avenue",
    "Canal Walk",
    "Orchard Close",
    "Bridge Street",
    "Park Row",
]
CITIES = [
    ("Leeds", "LS1"),
    ("Bristol", "BS8"),
    ("York", "YO1"),
    ("Bath", "BA2"),
    ("Derby", "DE1"),
    ("Oxford", "OX4"),
]


def address_make(rng: random.Random) -> str:
    city, district = rng.choice(CITIES)
    return (
        f"{rng.randint(2, 180)} {rng.choice(STREETS)}, {city} {district} {rng.randint(1, 9)}"
        f"{rng.choice('ABDEFGHJ')}{rng.choice('LNPQRTUW')}"
    )


def world_create(seed: int = 7) -> dict:
    """Fourteen customers with three or four orders each, every order paid by card."""
    rng = random.Random(seed)
    db: dict = {"customers": {}, "orders": {}, "payments": {}}
    order_no, payment_no = 5001, 9001
    statuses = ["pending", "pending", "shipped", "delivered", "delivered"]
    for index, (first, last) in enumerate(zip(FIRST, LAST, strict=True)):
        customer_id = f"C-{1001 + index}"
        address = address_make(rng)
        db["customers"][customer_id] = {
            "customer_id": customer_id,
            "name": f"{first} {last}",
            "email": f"{first.lower()}.{last.lower()}@example.com",
            "address": address,
        }
        products = rng.sample(PRODUCTS, 4)
        # Every customer has at least two pending and one delivered order.
        order_statuses = ["pending", "pending", "delivered"] + [rng.choice(statuses)]
        for (name, stem, price, variants), status in zip(products, order_statuses, strict=True):
            order_id, payment_id = f"O-{order_no}", f"P-{payment_no}"
            order_no += rng.randint(1, 3)
            payment_no += rng.randint(1, 5)
            quantity = 1 if rng.random() < 0.8 else 2
            items = [
                {
                    "sku": f"{stem}-{rng.choice(variants)}",
                    "name": name,
                    "price": price,
                    "quantity": quantity,
                }
            ]
            total = round(price * quantity + SHIPPING_FEE, 2)
            db["orders"][order_id] = {
                "order_id": order_id,
                "customer_id": customer_id,
                "status": status,
                "items": items,
                "shipping_address": address,
                "delivery": None,
                "payment_id": payment_id,
                "total": total,
            }
            db["payments"][payment_id] = {
                "payment_id": payment_id,
                "order_id": order_id,
                "amount": total,
                "refunded": 0.0,
            }
    return db


def world_copy(db: dict) -> dict:
    return copy.deepcopy(db)


def variants_of(sku: str) -> list[str]:
    stem = sku.split("-")[0]
    for _name, product_stem, _price, variants in PRODUCTS:
        if product_stem == stem:
            return [f"{stem}-{v}" for v in variants]
    return []


SYSTEM_PROMPT = (
    "You are the customer-service agent of Northwind Goods. Verify the customer and look the "
    "order up before you change anything. Only pending orders can be cancelled, re-addressed "
    "or scheduled. Damaged items are refunded at the item price, never the shipping fee "
    f"({SHIPPING_FEE:.2f}), with reason code {DAMAGE_CODE}. Cancellation reasons: "
    f"{', '.join(REASONS)}. Ask when the request is unclear."
)


def state_equal(left: dict, right: dict) -> bool:
    """The reward: two databases hold the same customers, orders and payments."""
    return left == right
