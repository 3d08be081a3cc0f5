from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import TokenScope
from accounts.roles import ROLE_ORDER, user_roles


class MeView(APIView):
    """Who the token or session belongs to, the roles it carries, and what the token may do."""

    # So an agent can check its send-only token works.
    send_only_methods = ("GET",)

    @extend_schema(
        responses=inline_serializer(
            "Me",
            {
                "username": serializers.CharField(),
                "roles": serializers.ListField(),
                "token_scope": serializers.ChoiceField(
                    TokenScope.choices, allow_null=True, help_text="Null for a session."
                ),
            },
        )
    )
    def get(self, request):
        roles = user_roles(request.user)
        return Response(
            {
                "username": request.user.get_username(),
                "roles": [role for role in ROLE_ORDER if role in roles],
                "token_scope": getattr(request.auth, "scope", None),
            }
        )
