from django.contrib import admin

from accounts.models import ApiToken, IdempotencyKey


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "user", "prefix", "scope", "created_at", "last_used_at", "revoked_at")
    readonly_fields = ("token_hash", "prefix", "created_at", "last_used_at")
    search_fields = ("name", "user__username", "prefix")


@admin.register(IdempotencyKey)
class IdempotencyKeyAdmin(admin.ModelAdmin):
    list_display = ("key", "user", "status_code", "created_at")
    readonly_fields = ("user", "key", "request_hash", "status_code", "response_body", "created_at")
    search_fields = ("key", "user__username")
