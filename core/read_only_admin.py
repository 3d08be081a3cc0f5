"""Admin bases for rows the application writes: shown in the admin, never added or edited there."""

from django.contrib import admin


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows a service writes: the admin reads them and may delete one, never adds or edits."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class ImmutableAdmin(ReadOnlyAdmin):
    """Rows nothing may remove either: audit lines, and versions other rows point at."""

    def has_delete_permission(self, request, obj=None):
        return False
