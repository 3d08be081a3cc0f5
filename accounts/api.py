from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.roles import ROLE_ORDER, user_roles


class MeView(APIView):
    """Who the token or session belongs to, and the roles it carries."""

    @extend_schema(
        responses=inline_serializer(
            "Me",
            {
                "username": serializers.CharField(),
                "roles": serializers.ListField(),
            },
        )
    )
    def get(self, request):
        roles = user_roles(request.user)
        return Response(
            {
                "username": request.user.get_username(),
                "roles": [role for role in ROLE_ORDER if role in roles],
            }
        )
