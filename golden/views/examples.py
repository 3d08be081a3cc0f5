"""Golden example pages: list, detail, write by hand, edit, promote, held-out draw."""

from urllib.parse import urlencode

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render

from accounts.roles import ANNOTATOR, CURATOR, require_role
from core.bounded_paginator import BoundedPaginator
from core.errors import ApplicationError
from core.keyset import keyset_page_for_view
from golden.collect import golden_example_confirm
from golden.content import example_content
from golden.duplicates import example_near_duplicates
from golden.forms import GoldenExampleForm, HeldOutDrawForm
from golden.masking import example_data_masked
from golden.models import AdversarialKind, GoldenExample
from golden.selectors import (
    EXAMPLE_ORDER,
    golden_example_get_for_user,
    golden_example_list,
    golden_task_types,
    promotable_review_items,
)
from golden.services import (
    NearDuplicateFound,
    golden_example_create,
    golden_example_promote,
    golden_example_promote_draft,
    golden_example_update,
    held_out_draw,
    promotion_annotation,
)
from metrics.coverage import checks_only_outcome, outcome_only_note
from reviews.models import ReviewItem
from traces.selectors import sees_held_out

EXAMPLES_PER_PAGE = 50


def example_filters(params) -> dict:
    """The example list's filter from a query string (the list page, its bulk delete)."""
    return {
        "task_type": params.get("task_type", ""),
        "held_out": params.get("held_out", ""),
        "query": params.get("q", "").strip(),
        "draft": params.get("draft", ""),
    }


def example_filter_query(filters: dict) -> str:
    """The filter as a query string again, without the list's page cursor."""
    names = {"task_type": "task_type", "held_out": "held_out", "query": "q", "draft": "draft"}
    return urlencode({names[key]: value for key, value in filters.items() if value})


@require_role(ANNOTATOR)
def example_list(request):
    filters = example_filters(request.GET)
    examples = golden_example_list(request.user, **filters)
    page, error = keyset_page_for_view(examples, EXAMPLE_ORDER, request.GET, EXAMPLES_PER_PAGE)
    return render(
        request,
        "golden/example_list.html",
        {
            "page": page,
            "error": error,
            # The figure above the list: a count that stops past COUNT_CAP, as it says.
            "counter": BoundedPaginator(examples, EXAMPLES_PER_PAGE),
            "filters": filters,
            "filter_query": example_filter_query(filters),
            "task_types": golden_task_types(request.user),
            "sees_held_out": sees_held_out(request.user),
        },
        status=400 if error else 200,
    )


@require_role(ANNOTATOR)
def example_detail(request, pk: int):
    example = golden_example_get_for_user(request.user, pk)
    return render(
        request,
        "golden/example_detail.html",
        {
            "example": example,
            "adversarial_label": AdversarialKind(example.adversarial_kind).label,
            "outcome_only_note": (
                outcome_only_note() if checks_only_outcome(example_content(example)) else ""
            ),
        },
    )


def _render_form(request, form, example=None, duplicates=(), **extra):
    return render(
        request,
        "golden/example_form.html",
        {"form": form, "example": example, "duplicates": duplicates, **extra},
        status=400 if form.is_bound and (form.errors or duplicates) else 200,
    )


def _save(request, form, example=None):
    """Run the create or update service; return the example or None with the form annotated."""
    allow = form.cleaned_data.get("allow_duplicate", False)
    if example is None:
        return golden_example_create(
            data=form.example_data, user=request.user, allow_duplicate=allow
        )
    return golden_example_update(
        example=example, data=form.example_data, user=request.user, allow_duplicate=allow
    )


@require_role(CURATOR)
def example_create(request):
    if request.method != "POST":
        initial = {"adversarial_kind": request.GET.get("adversarial_kind", "")}
        return _render_form(request, GoldenExampleForm(initial=initial))
    form = GoldenExampleForm(request.POST)
    if not form.is_valid():
        return _render_form(request, form)
    try:
        example = _save(request, form)
    except NearDuplicateFound as exc:
        return _render_form(request, form, duplicates=exc.matches)
    messages.success(request, f"Example #{example.pk} saved.")
    return redirect("golden:example_detail", pk=example.pk)


@require_role(CURATOR)
def example_edit(request, pk: int):
    example = golden_example_get_for_user(request.user, pk)
    if request.method != "POST":
        form = GoldenExampleForm(initial=GoldenExampleForm.initial_from(example))
        duplicates = example_near_duplicates(
            task=example.task, task_type=example.task_type, exclude_pk=example.pk
        )
        return render(
            request,
            "golden/example_form.html",
            {"form": form, "example": example, "duplicates": duplicates, "advisory": True},
        )
    form = GoldenExampleForm(request.POST)
    if not form.is_valid():
        return _render_form(request, form, example)
    try:
        _save(request, form, example)
    except NearDuplicateFound as exc:
        return _render_form(request, form, example, duplicates=exc.matches)
    if example.draft:
        # Saving a draft from this form is the curator's check of it.
        golden_example_confirm(example=example, user=request.user)
        messages.success(request, f"Example #{example.pk} saved and confirmed.")
        return redirect("golden:example_detail", pk=example.pk)
    messages.success(request, f"Example #{example.pk} saved.")
    return redirect("golden:example_detail", pk=example.pk)


@require_role(CURATOR)
def promote_list(request):
    items = promotable_review_items()
    return render(request, "golden/promote_list.html", {"items": items})


@require_role(CURATOR)
def promote_item(request, item_id: int):
    """The promotion draft as the example form; nothing is written until the curator saves."""
    item = get_object_or_404(
        ReviewItem.objects.select_related("trace", "rubric_version__rubric"), pk=item_id
    )
    existing = GoldenExample.objects.filter(source_review_item=item).first()
    if existing is not None:
        return redirect("golden:example_edit", pk=existing.pk)
    try:
        annotation = promotion_annotation(item)
    except ApplicationError as exc:
        messages.error(request, exc.message)
        return redirect("golden:promote_list")
    draft, flagged_steps = golden_example_promote_draft(item=item, annotation=annotation)
    _, will_mask = example_data_masked(draft, item.trace.project_id)
    context = {"promoted_item": item, "flagged_steps": flagged_steps, "will_mask": will_mask}
    if request.method != "POST":
        form = GoldenExampleForm(initial=GoldenExampleForm.initial_from_data(draft))
        return _render_form(request, form, **context)
    form = GoldenExampleForm(request.POST)
    if not form.is_valid():
        return _render_form(request, form, **context)
    example = golden_example_promote(
        item=item, annotation=annotation, user=request.user, data=form.example_data
    )
    messages.success(request, f"Example #{example.pk} saved from review item #{item.pk}.")
    return redirect("golden:example_detail", pk=example.pk)


@require_role(CURATOR)
def held_out(request):
    form = HeldOutDrawForm(request.POST or None, task_types=golden_task_types(request.user))
    if request.method == "POST" and form.is_valid():
        counts = held_out_draw(
            share=form.cleaned_data["share_percent"] / 100,
            user=request.user,
            task_type=form.cleaned_data["task_type"],
        )
        total = sum(counts.values())
        messages.success(request, f"{total} examples held out across {len(counts)} task types.")
        return redirect("golden:held_out")
    examples = golden_example_list(request.user)
    return render(
        request,
        "golden/held_out.html",
        {
            "form": form,
            "held_out_count": examples.filter(held_out=True).count(),
            "total": examples.count(),
        },
        status=400 if form.is_bound else 200,
    )
