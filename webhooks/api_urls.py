from django.urls import path

from webhooks import api

urlpatterns = [
    path("webhooks/", api.WebhookListView.as_view(), name="api-webhooks"),
    path("webhooks/<int:pk>/", api.WebhookDetailView.as_view(), name="api-webhook"),
    path(
        "webhooks/<int:pk>/deliveries/",
        api.WebhookDeliveryListView.as_view(),
        name="api-webhook-deliveries",
    ),
    path("webhooks/<int:pk>/test/", api.WebhookTestView.as_view(), name="api-webhook-test"),
]
