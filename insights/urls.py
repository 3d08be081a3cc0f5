from django.urls import path

from insights import alignment_pages, views, views_topics

app_name = "insights"
urlpatterns = [
    path("charts/<slug:key>.csv", views.chart_csv, name="chart_csv"),
    path("agent/", views.agent_dashboard, name="agent_dashboard"),
    path("agent/charts/<slug:key>.csv", views.agent_chart_csv, name="agent_chart_csv"),
    path("calibration/", views.calibration_list, name="calibration_list"),
    path("calibration/<int:calibration_id>/", views.calibration_detail, name="calibration_detail"),
    path(
        "calibration/<int:calibration_id>/status/",
        views.calibration_status_change,
        name="calibration_status_change",
    ),
    path(
        "calibration/<int:calibration_id>/align/",
        alignment_pages.alignment_proposal_create,
        name="alignment_proposal_create",
    ),
    path(
        "alignment/<int:proposal_id>/",
        alignment_pages.alignment_proposal_detail,
        name="alignment_proposal",
    ),
    path(
        "alignment/<int:proposal_id>/approve/",
        alignment_pages.alignment_proposal_approve,
        name="alignment_proposal_approve",
    ),
    path("held-out/", views.held_out_report, name="held_out_report"),
    path("topics/", views_topics.topics, name="topics"),
    path("topics/rebuild/", views_topics.topics_rebuild, name="topics_rebuild"),
    path("topics/<int:topic_id>/action/", views_topics.topic_action, name="topic_action"),
    path("judging/", views_topics.judging_health, name="judging_health"),
]
