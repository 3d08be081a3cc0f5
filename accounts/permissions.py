from rest_framework.permissions import BasePermission

from accounts.roles import ANNOTATOR, CURATOR, has_role


class _RolePermission(BasePermission):
    role = ""

    def has_permission(self, request, view):
        return bool(request.user and has_role(request.user, self.role))


class IsAnnotator(_RolePermission):
    role = ANNOTATOR
    message = "This endpoint needs the annotator role."


class IsCurator(_RolePermission):
    role = CURATOR
    message = "This endpoint needs the curator role."
