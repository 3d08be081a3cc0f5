"""The audit page: curators read the append-only log, filtered by person, item and action."""

from django import forms
from django.core.paginator import Paginator
from django.shortcuts import render
from django.views.decorators.http import require_safe

from accounts.roles import CURATOR, require_role
from reviews.audit import audit_actions, audit_events_filtered


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
    page = Paginator(events, 50).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request,
        "reviews/audit_list.html",
        {"form": form, "page": page, "query": query.urlencode()},
        status=400 if form.is_bound and form.errors else 200,
    )
