"""How the simulated judge proposes criteria for a task type and classifies a trace's type.

Criteria are written per tool the example traces call (the check a careful reviewer of that tool
would make), so they are specific to the type; generic questions are never proposed.
"""

import json
import re

GENERATE_MARKER = "Propose evaluation criteria for one task type of an AI agent."
CLASSIFY_MARKER = "Classify the task type of this agent trace."
# A generic question answers yes for every trace: the simulated judge reproduces that.
GENERIC_WORDS = ("polite", "helpful", "clear", "professional", "friendly", "courteous")

TOOL_CRITERIA = {
    "get_recent_orders": (
        "Did the agent look up the customer's orders with get_recent_orders before acting?",
        "A get_recent_orders span before any change, with the customer id from the task.",
    ),
    "cancel_order": (
        "Did cancel_order receive an order id that appears in the looked-up orders?",
        "The order_id input of cancel_order matches an order returned earlier.",
    ),
    "search_flights": (
        "Did the agent search flights once per route and date instead of repeating the search?",
        "No two search_flights spans with identical origin, destination and date.",
    ),
    "book_flight": (
        "Was book_flight called with a flight id returned by search_flights?",
        "The flight_id input of book_flight appears in a search_flights output.",
    ),
    "read_file": (
        "Did read_file open only paths that exist in the repository listing or the task?",
        "Each read_file path appears in the task or an earlier listing output.",
    ),
    "run_tests": (
        "Did the agent call run_tests after its change and report the actual result?",
        "A run_tests span after the edit, and the answer quotes its pass/fail outcome.",
    ),
}
CLOSING_CRITERIA = (
    (
        "When a tool returned an error or nothing, did the final answer say so instead of "
        "claiming success?",
        "Any tool span with an error or empty output, and the wording of the final answer.",
    ),
    (
        "Does the final answer state only facts that a tool output in the trace supports?",
        "Each figure, id or status in the final answer appears in a tool output.",
    ),
    (
        "Did the agent finish the task without calls to tools the task did not need?",
        "Every tool span serves the task; no unrelated lookups.",
    ),
)
# Tools say more than words: a coding task may well mention an order model.
TYPE_SIGNALS = (
    ("bug_fix", ("run_tests", "read_file", "edit_file"), ("bug", "fix", "failing test")),
    ("flight_booking", ("search_flights", "book_flight"), ("flight", "trip")),
    ("order_cancellation", ("cancel_order", "get_recent_orders"), ("cancel", "refund")),
)


def _line_value(prompt: str, label: str) -> str:
    match = re.search(rf"^{label}:\s*(.*)$", prompt, flags=re.MULTILINE)
    return match.group(1).strip() if match else ""


def criteria_propose(prompt: str) -> str:
    """A JSON reply of 4–6 criteria for the task type and tools the prompt names."""
    tools = [t.strip() for t in _line_value(prompt, "Tools").split(",") if t.strip()]
    proposed = []
    for tool in tools:
        if tool in TOOL_CRITERIA:
            question, evidence = TOOL_CRITERIA[tool]
        else:
            question = (
                f"Did the agent call {tool} with arguments taken from the task or earlier tools?"
            )
            evidence = f"Every argument of each {tool} span appears earlier in the trace."
        proposed.append({"question": question, "evidence": evidence})
    for question, evidence in CLOSING_CRITERIA:
        if len(proposed) >= 6:
            break
        proposed.append({"question": question, "evidence": evidence})
    if len(proposed) < 4:
        proposed.append(
            {
                "question": "Did the agent confirm the outcome with the tool that made the change?",
                "evidence": "The output of the last tool span that changed state.",
            }
        )
    return json.dumps({"criteria": proposed[:6]})


def task_type_guess(prompt: str) -> str:
    """A JSON reply naming a known type whose words the task text contains."""
    match = re.search(r"<task>(.*?)</task>", prompt, flags=re.DOTALL)
    task = (match.group(1) if match else prompt).lower()
    known = [k.strip() for k in _line_value(prompt, "Known task types").split(",")]
    tools = {t.strip() for t in _line_value(prompt, "Tools called").split(",")}
    for task_type, type_tools, _words in TYPE_SIGNALS:
        if tools & set(type_tools):
            return json.dumps({"task_type": task_type})
    for task_type, _tools, words in TYPE_SIGNALS:
        if any(word in task for word in words):
            return json.dumps({"task_type": task_type})
    fallback = next((k for k in known if k and not k.startswith("(")), "general")
    return json.dumps({"task_type": fallback})


def question_is_generic(question: str) -> bool:
    lowered = question.lower()
    return any(word in lowered for word in GENERIC_WORDS)
