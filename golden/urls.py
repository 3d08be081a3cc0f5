from django.urls import path

from golden import views

app_name = "golden"
urlpatterns = [
    path("", views.example_list, name="example_list"),
]
