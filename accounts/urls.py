from django.urls import path

from accounts import views

app_name = "accounts"
urlpatterns = [
    path("tokens/", views.token_list, name="tokens"),
    path("tokens/<int:token_id>/revoke/", views.token_revoke, name="token_revoke"),
]
