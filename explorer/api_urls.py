from django.urls import path

from explorer import session_api

urlpatterns = [
    path("sessions/", session_api.SessionListApi.as_view(), name="api-sessions"),
    path(
        "sessions/<int:session_id>/",
        session_api.SessionDetailApi.as_view(),
        name="api-session-detail",
    ),
]
