"""Webhook pages (curators): register a URL, read its delivery log, send a test event."""

from django.contrib import messages
from django.db.models import OuterRef, Subquery
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from accounts.roles import CURATOR, require_role
from core.errors import ApplicationError
from webhooks.forms import WebhookForm
from webhooks.models import Webhook, WebhookDelivery
from webhooks.services import webhook_create, webhook_test_send, webhook_update

LOG_ROWS = 50


@require_role(CURATOR)
def webhook_list(request):
    form = WebhookForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            hook = webhook_create(user=request.user, **form.cleaned_data)
        except ApplicationError as exc:
            form.add_error(exc.field if exc.field in form.fields else None, exc.message)
        else:
            messages.success(request, f"Webhook for {hook.url} registered.")
            return redirect("webhooks:detail", pk=hook.pk)
    latest = WebhookDelivery.objects.filter(webhook=OuterRef("pk")).order_by("-created_at", "-pk")
    hooks = Webhook.objects.annotate(
        last_status=Subquery(latest.values("status")[:1]),
        last_code=Subquery(latest.values("response_code")[:1]),
    ).order_by("pk")
    return render(request, "webhooks/webhook_list.html", {"form": form, "hooks": hooks})


@require_role(CURATOR)
def webhook_detail(request, pk: int):
    hook = get_object_or_404(Webhook, pk=pk)
    deliveries = hook.deliveries.order_by("-created_at", "-pk")[:LOG_ROWS]
    return render(request, "webhooks/webhook_detail.html", {"hook": hook, "deliveries": deliveries})


@require_POST
@require_role(CURATOR)
def webhook_test(request, pk: int):
    webhook_test_send(get_object_or_404(Webhook, pk=pk))
    messages.success(request, "Test event queued; its delivery appears in the log below.")
    return redirect("webhooks:detail", pk=pk)


@require_POST
@require_role(CURATOR)
def webhook_toggle(request, pk: int):
    hook = get_object_or_404(Webhook, pk=pk)
    webhook_update(hook, active=not hook.active)
    messages.success(request, "Webhook resumed." if hook.active else "Webhook paused.")
    return redirect("webhooks:detail", pk=pk)


@require_POST
@require_role(CURATOR)
def webhook_delete(request, pk: int):
    hook = get_object_or_404(Webhook, pk=pk)
    hook.delete()
    messages.success(request, f"Webhook for {hook.url} removed.")
    return redirect("webhooks:list")
