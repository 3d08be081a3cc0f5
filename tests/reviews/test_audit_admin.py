"""The audit log is append-only in the admin too: it can be read, not added, edited or deleted."""

from django.urls import reverse

from reviews.models import AuditEvent


def test_admin_cannot_add_change_or_delete_audit_events(client, admin_user):
    event = AuditEvent.objects.create(
        action="review_item_resolve", object_type="review_item", object_id="7"
    )
    client.force_login(admin_user)

    assert client.get(reverse("admin:reviews_auditevent_changelist")).status_code == 200
    assert client.get(reverse("admin:reviews_auditevent_add")).status_code == 403
    change_url = reverse("admin:reviews_auditevent_change", args=[event.pk])
    client.post(change_url, {"action": "edited", "object_type": "x", "object_id": "1"})
    delete_url = reverse("admin:reviews_auditevent_delete", args=[event.pk])
    assert client.post(delete_url, {"post": "yes"}).status_code == 403
    event.refresh_from_db()
    assert event.action == "review_item_resolve"
