"""POST /api/feedback/: an application sends end-user feedback; GET lists it, filtered."""

import django_filters
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.parsers import JSONParser
from rest_framework.response import Response

from accounts.permissions import IsAnnotator
from core.pagination import ApiPagination
from traces.feedback import FIELDS, feedback_record
from traces.models import Feedback, FeedbackKind
from traces.selectors import traces_visible


class FeedbackOut(serializers.ModelSerializer):
    trace_id = serializers.CharField(source="trace.external_id")
    project = serializers.CharField(source="trace.project.slug")

    class Meta:
        model = Feedback
        fields = ["id", *FIELDS, "created_at"]


class FeedbackFilter(django_filters.FilterSet):
    trace_id = django_filters.CharFilter(field_name="trace__external_id")
    project = django_filters.CharFilter(field_name="trace__project__slug")
    name = django_filters.CharFilter()
    kind = django_filters.ChoiceFilter(choices=FeedbackKind.choices)
    end_user = django_filters.CharFilter()

    class Meta:
        model = Feedback
        fields: list[str] = []


class FeedbackPagination(ApiPagination):
    max_limit = 1000


class FeedbackApi(GenericAPIView):
    permission_classes = [IsAnnotator]
    # An end user's score comes from the agent's send-only token; reading needs a full one.
    send_only_methods = ("POST",)
    parser_classes = [JSONParser]
    serializer_class = FeedbackOut
    filter_backends = [DjangoFilterBackend]
    filterset_class = FeedbackFilter
    pagination_class = FeedbackPagination
    page_ordering = ("-id",)

    def get_queryset(self):
        rows = Feedback.objects.select_related("trace__project").order_by("-pk")
        return traces_visible(self.request.user, rows, via="trace")

    @extend_schema(responses=FeedbackOut(many=True))
    def get(self, request):
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        return self.get_paginated_response(FeedbackOut(page, many=True).data)

    @extend_schema(
        request=inline_serializer(
            "FeedbackIn",
            {
                "trace_id": serializers.CharField(help_text="Hex trace id (or evalsite id)."),
                "project": serializers.CharField(required=False),
                "span_id": serializers.CharField(required=False),
                "name": serializers.CharField(required=False, default="user_feedback"),
                "kind": serializers.ChoiceField(FeedbackKind.values),
                "value": serializers.JSONField(
                    required=False, help_text='thumbs: true/false, 1/0, "up"/"down"; number.'
                ),
                "category": serializers.CharField(required=False),
                "comment": serializers.CharField(required=False),
                "end_user": serializers.CharField(required=False),
                "metadata": serializers.DictField(required=False),
                "key": serializers.CharField(
                    required=False, help_text="Your id for it: a retry with it is not doubled."
                ),
            },
        ),
        responses={201: FeedbackOut, 200: FeedbackOut},
        description="201 when stored, 200 when this key was stored before with the same "
        "values, 409 when it was stored with different ones.",
    )
    def post(self, request):
        feedback, created = feedback_record(request.data, request.user)
        code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return Response(FeedbackOut(feedback).data, status=code)
