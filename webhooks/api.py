"""Webhooks API (curators): register URLs, read each one's delivery log, send a test event."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsCurator
from core.pagination import ApiPagination
from webhooks.events import SUBSCRIBABLE
from webhooks.models import Webhook, WebhookDelivery
from webhooks.services import webhook_create, webhook_test_send, webhook_update


class WebhookOut(serializers.ModelSerializer):
    class Meta:
        model = Webhook
        fields = ["id", "url", "events", "active", "backlog_threshold", "secret", "created_at"]


class WebhookIn(serializers.Serializer):
    url = serializers.CharField(max_length=2000)
    events = serializers.ListField(child=serializers.ChoiceField(SUBSCRIBABLE), min_length=1)
    backlog_threshold = serializers.IntegerField(min_value=0, default=100)
    active = serializers.BooleanField(default=True)


class DeliveryOut(serializers.ModelSerializer):
    class Meta:
        model = WebhookDelivery
        fields = [
            "id",
            "event",
            "status",
            "attempts",
            "response_code",
            "response_excerpt",
            "error",
            "payload",
            "created_at",
            "last_attempt_at",
            "delivered_at",
        ]


class DeliveryPagination(ApiPagination):
    default_limit = 50
    max_limit = 500


class WebhookListView(APIView):
    permission_classes = [IsCurator]

    @extend_schema(responses=WebhookOut(many=True))
    def get(self, request):
        return Response(WebhookOut(Webhook.objects.order_by("pk"), many=True).data)

    @extend_schema(request=WebhookIn, responses={201: WebhookOut})
    def post(self, request):
        data = WebhookIn(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        active = values.pop("active")
        hook = webhook_create(user=request.user, **values)
        if not active:
            webhook_update(hook, active=False)
        return Response(WebhookOut(hook).data, status=status.HTTP_201_CREATED)


class WebhookDetailView(APIView):
    permission_classes = [IsCurator]

    @extend_schema(responses=WebhookOut)
    def get(self, request, pk: int):
        return Response(WebhookOut(get_object_or_404(Webhook, pk=pk)).data)

    @extend_schema(request=WebhookIn(partial=True), responses=WebhookOut)
    def patch(self, request, pk: int):
        hook = get_object_or_404(Webhook, pk=pk)
        data = WebhookIn(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        return Response(WebhookOut(webhook_update(hook, **data.validated_data)).data)

    @extend_schema(responses={204: None})
    def delete(self, request, pk: int):
        get_object_or_404(Webhook, pk=pk).delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookDeliveryListView(APIView):
    permission_classes = [IsCurator]
    pagination_class = DeliveryPagination
    page_ordering = ("-created_at", "-id")

    @extend_schema(responses=DeliveryOut(many=True))
    def get(self, request, pk: int):
        hook = get_object_or_404(Webhook, pk=pk)
        paginator = self.pagination_class()
        deliveries = hook.deliveries.order_by("-created_at", "-pk")
        page = paginator.paginate_queryset(deliveries, request, view=self)
        return paginator.get_paginated_response(DeliveryOut(page, many=True).data)


class WebhookTestView(APIView):
    permission_classes = [IsCurator]

    @extend_schema(request=None, responses={202: DeliveryOut})
    def post(self, request, pk: int):
        delivery = webhook_test_send(get_object_or_404(Webhook, pk=pk))
        return Response(DeliveryOut(delivery).data, status=status.HTTP_202_ACCEPTED)
