"""The audit page: curators read the append-only log, filtered by person, item and action."""

from django import forms
from django.shortcuts import render
from django.views.decorators.http import require_safe

from accounts.roles import CURATOR, require_role
from core.bounded_paginator import BoundedPaginator
from core.keyset import keyset_page_for_view
from reviews.audit import AUDIT_ORDER, audit_actions, audit_events_filtered

EVENTS_PER_PAGE = 50


class AuditFilterForm(forms.Form):
    person = forms.CharField(required=False, max_length=150, label="Person (username)")
    item = forms.IntegerField(required=False, min_value=1, label="Review item #")
    action = forms.ChoiceField(required=False)

    def __init__(self, *args, actions=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["action"].choices = [("", "Any action")] + [(a, a) for a in actions]


@require_safe
@require_role(CURATOR)
def audit_list(request):
    form = AuditFilterForm(request.GET or None, actions=audit_actions())
    filters = form.cleaned_data if form.is_bound and form.is_valid() else {}
    events = audit_events_filtered(
        person=(filters.get("person") or "").strip(),
        item=filters.get("item"),
        action=filters.get("action") or "",
    )
    page, error = keyset_page_for_view(events, AUDIT_ORDER, request.GET, EVENTS_PER_PAGE)
    return render(
        request,
        "reviews/audit_list.html",
        {
            "form": form,
            "page": page,
            "page_error": error,
            # A count that stops past COUNT_CAP, as it says: the log only grows.
            "counter": BoundedPaginator(events, EVENTS_PER_PAGE),
        },
        status=400 if (form.is_bound and form.errors) or error else 200,
    )
