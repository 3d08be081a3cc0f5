from django.urls import path

from traces import views

app_name = "traces"
urlpatterns = [
    path("", views.trace_list, name="list"),
    path("upload/", views.trace_upload, name="upload"),
    path("projects/", views.project_list, name="projects"),
    path("<int:trace_id>/", views.trace_detail, name="detail"),
]
