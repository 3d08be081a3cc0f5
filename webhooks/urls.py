from django.urls import path

from webhooks import views

app_name = "webhooks"

urlpatterns = [
    path("", views.webhook_list, name="list"),
    path("<int:pk>/", views.webhook_detail, name="detail"),
    path("<int:pk>/test/", views.webhook_test, name="test"),
    path("<int:pk>/toggle/", views.webhook_toggle, name="toggle"),
    path("<int:pk>/delete/", views.webhook_delete, name="delete"),
]
