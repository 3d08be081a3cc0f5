from django.urls import path

from judges import views

app_name = "judges"
urlpatterns = [
    path("rubrics/", views.rubric_list, name="rubric_list"),
    path("runs/", views.run_list, name="run_list"),
]
