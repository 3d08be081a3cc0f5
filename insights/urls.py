from django.urls import path

from insights import views

app_name = "insights"
urlpatterns = [
    path("charts/<slug:key>.csv", views.chart_csv, name="chart_csv"),
    path("calibration/", views.calibration_list, name="calibration_list"),
    path("calibration/<int:calibration_id>/", views.calibration_detail, name="calibration_detail"),
    path(
        "calibration/<int:calibration_id>/status/",
        views.calibration_status_change,
        name="calibration_status_change",
    ),
    path("held-out/", views.held_out_report, name="held_out_report"),
]
