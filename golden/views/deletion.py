"""Deleting golden examples from the browser: one from its page, or an example-list filter's
worth, each after a page that says what the deletion touches (golden.deletion)."""

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse

from accounts.roles import CURATOR, require_role
from core.errors import ApplicationError
from golden.deletion import (
    MAX_EXAMPLES_DELETED_AT_ONCE,
    examples_deletion_preview,
    golden_examples_delete,
)
from golden.selectors import golden_example_get_for_user, golden_example_list
from golden.views.examples import example_filter_query, example_filters

# The examples named on the confirmation page; the rest are counted.
EXAMPLES_SHOWN = 20


@require_role(CURATOR)
def example_delete(request, pk: int):
    example = golden_example_get_for_user(request.user, pk)
    examples = golden_example_list(request.user).filter(pk=example.pk)
    if request.method == "POST":
        return _delete(request, examples, reverse("golden:example_list"))
    return _confirm(request, examples, cancel=reverse("golden:example_detail", args=[pk]))


@require_role(CURATOR)
def examples_delete(request):
    """Every example of a list filter; the form carries the count the curator was shown, and a
    filter that matches another count by then is shown again instead of deleted."""
    params = request.POST if request.method == "POST" else request.GET
    filters = example_filters(params)
    examples = golden_example_list(request.user, **filters)
    query = example_filter_query(filters)
    back = f"{reverse('golden:example_list')}{'?' if query else ''}{query}"
    if request.method == "POST":
        shown = params.get("expected", "")
        now = examples.count()
        if shown != str(now):
            notice = f"The filter matches {now} examples now, not {shown}: check them again."
            return _confirm(request, examples, cancel=back, filters=filters, notice=notice)
        return _delete(request, examples, back)
    return _confirm(request, examples, cancel=back, filters=filters)


def _confirm(request, examples, *, cancel: str, filters=None, notice: str = ""):
    preview = examples_deletion_preview(examples)
    return render(
        request,
        "golden/examples_delete.html",
        {
            "preview": preview,
            "examples": examples[:EXAMPLES_SHOWN],
            "unshown": max(preview.count - EXAMPLES_SHOWN, 0),
            "filters": filters,
            "cancel": cancel,
            "notice": notice,
            "max_at_once": MAX_EXAMPLES_DELETED_AT_ONCE,
        },
        status=409 if notice else 200,
    )


def _delete(request, examples, done: str):
    try:
        report = golden_examples_delete(examples=examples, user=request.user)
    except ApplicationError as exc:
        messages.error(request, exc.message)
        return redirect(done)
    released = (
        f" {report.released_traces} trace{'s are' if report.released_traces != 1 else ' is'} "
        "no longer held out."
        if report.released_traces
        else ""
    )
    plural = "s" if report.deleted != 1 else ""
    messages.success(request, f"Deleted {report.deleted} golden example{plural}.{released}")
    return redirect(done)
