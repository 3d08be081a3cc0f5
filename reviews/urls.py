from django.urls import path

from reviews.views import audit, items, pairwise, queues, trace_scores

app_name = "reviews"
urlpatterns = [
    path("", queues.queue_list, name="queue_list"),
    path("claim/", queues.claim_any, name="claim_any"),
    path("queues/new/", queues.queue_edit, name="queue_create"),
    path("queues/<int:queue_id>/edit/", queues.queue_edit, name="queue_edit"),
    path("queues/<int:queue_id>/", queues.queue_detail, name="queue_detail"),
    path("queues/<int:queue_id>/claim/", queues.queue_claim, name="queue_claim"),
    path(
        "queues/<int:queue_id>/pairwise-judge/",
        pairwise.queue_pairwise_judge,
        name="queue_pairwise_judge",
    ),
    path("queues/<int:queue_id>/bulk/", queues.queue_bulk, name="queue_bulk"),
    path("queues/<int:queue_id>/views/", queues.saved_view_create, name="saved_view_create"),
    path("views/<int:view_id>/delete/", queues.saved_view_delete, name="saved_view_delete"),
    path("items/<int:item_id>/", items.item_detail, name="item_detail"),
    path("items/<int:item_id>/resolve/", items.item_resolve, name="item_resolve"),
    path("items/<int:item_id>/prefer/", pairwise.pairwise_item_answer, name="pairwise_answer"),
    path("items/<int:item_id>/skip/", items.item_skip, name="item_skip"),
    path("items/<int:item_id>/flag/", items.item_flag, name="item_flag"),
    path("items/<int:item_id>/comment/", items.item_comment, name="item_comment"),
    path("items/<int:item_id>/heartbeat/", items.item_heartbeat, name="item_heartbeat"),
    path("traces/<int:trace_id>/flag/", items.trace_flag, name="trace_flag"),
    path("traces/<int:trace_id>/score/", trace_scores.trace_score, name="trace_score"),
    path("annotations/<int:annotation_id>/undo/", items.item_undo, name="annotation_undo"),
    path("audit/", audit.audit_list, name="audit_list"),
]
