"""Which spans of a big tree a page renders now, and which it leaves for later.

A trace page renders the tree in pre-order up to a row budget; each run of siblings past the
budget becomes one placeholder that loads those spans (views.trace_tree_rows) when scrolled to
or pressed. Spans a page must show (cited ones, the one in ?span=) are rendered whatever the
budget, together with their ancestors, so a link to them always finds them.
"""

from __future__ import annotations

from dataclasses import dataclass

from traces.selectors import SpanNode

# About 0.5 MB of HTML with real payloads' first levels.
WINDOW_ROWS = 500


@dataclass
class Open:
    node: SpanNode


@dataclass
class Close:
    """Closes the children list and the item of the last opened node with children."""


@dataclass
class More:
    parent_id: str
    start: int
    end: int
    spans: int


@dataclass
class _Siblings:
    parent_id: str
    children: list[SpanNode]
    index: int
    end: int


def subtree_sizes(roots: list[SpanNode]) -> dict[int, int]:
    """Number of spans under and including each node, keyed by id(node); no recursion."""
    sizes: dict[int, int] = {}
    order: list[SpanNode] = []
    stack = list(roots)
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(node.children)
    for node in reversed(order):
        sizes[id(node)] = 1 + sum(sizes[id(child)] for child in node.children)
    return sizes


def forced_path(parents: dict[str, str], span_ids) -> set[str]:
    """The given spans and all their ancestors (parents as traces.selectors.span_parents)."""
    path: set[str] = set()
    for span_id in span_ids:
        while span_id in parents and span_id not in path:
            path.add(span_id)
            span_id = parents[span_id]
    return path


def window_plan(
    parent_id: str,
    children: list[SpanNode],
    start: int,
    end: int,
    forced: set[str],
    budget: int | None = None,
) -> list[Open | Close | More]:
    """Steps to render children[start:end] of one parent: opened nodes, closes, placeholders."""
    budget = WINDOW_ROWS if budget is None else budget
    sizes = subtree_sizes(children[start:end])
    plan: list[Open | Close | More] = []
    stack = [_Siblings(parent_id, children, start, min(end, len(children)))]
    rendered = 0
    while stack:
        group = stack[-1]
        if group.index >= group.end:
            stack.pop()
            if stack:
                plan.append(Close())
            continue
        if rendered >= budget:
            stop = next(
                (i for i in range(group.index, group.end) if group.children[i].span_id in forced),
                group.end,
            )
            if stop > group.index:
                count = sum(sizes[id(node)] for node in group.children[group.index : stop])
                plan.append(More(group.parent_id, group.index, stop, count))
                group.index = stop
                continue
        node = group.children[group.index]
        group.index += 1
        rendered += 1
        plan.append(Open(node))
        if node.children:
            stack.append(_Siblings(node.span_id, node.children, 0, len(node.children)))
    return plan
