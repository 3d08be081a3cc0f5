"""The support tools with the docstrings smolagents requires (it reads each argument's
description from an Args section, and names the tool after the function)."""

from tests.conformance import support_task


def lookup_order(order_id: str) -> str:
    """Look an order up by id; returns its amount and status as JSON.

    Args:
        order_id: The order id, such as R-7731.
    """
    return support_task.lookup_order(order_id)


def refund(order_id: str, amount: float) -> str:
    """Refund `amount` on an order; returns the refund id as JSON.

    Args:
        order_id: The order id.
        amount: The amount to refund.
    """
    return support_task.refund(order_id, amount)
