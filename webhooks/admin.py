from django.contrib import admin

from webhooks.models import Webhook, WebhookDelivery


@admin.register(Webhook)
class WebhookAdmin(admin.ModelAdmin):
    list_display = ("url", "active", "backlog_threshold", "created_at")


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    list_display = ("event", "webhook", "status", "attempts", "response_code", "created_at")
    list_filter = ("status", "event")
