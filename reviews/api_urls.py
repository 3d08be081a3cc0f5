from django.urls import path

from reviews import api, export_api, pairwise_api, scores_api, trace_scores_api

urlpatterns = [
    path(
        "traces/<int:trace_id>/scores/",
        trace_scores_api.TraceScoreApi.as_view(),
        name="api-trace-scores",
    ),
    path("reviews/queues/", api.QueueListApi.as_view(), name="api-review-queues"),
    path(
        "reviews/queues/<int:queue_id>/items/",
        api.QueueItemsApi.as_view(),
        name="api-review-queue-items",
    ),
    path(
        "reviews/queues/<int:queue_id>/claim/",
        api.QueueClaimApi.as_view(),
        name="api-review-claim",
    ),
    path(
        "reviews/items/<int:item_id>/resolve/",
        api.ItemResolveApi.as_view(),
        name="api-review-resolve",
    ),
    path(
        "reviews/items/<int:item_id>/adjudicate/",
        api.ItemAdjudicateApi.as_view(),
        name="api-review-adjudicate",
    ),
    path(
        "reviews/pairwise/",
        pairwise_api.PairwiseCreateApi.as_view(),
        name="api-review-pairwise-create",
    ),
    path(
        "reviews/queues/<int:queue_id>/pairwise-judge/",
        pairwise_api.QueuePairwiseJudgeApi.as_view(),
        name="api-review-pairwise-judge",
    ),
    path(
        "reviews/items/<int:item_id>/prefer/",
        pairwise_api.PairwiseAnswerApi.as_view(),
        name="api-review-pairwise-answer",
    ),
    path("reviews/items/<int:item_id>/skip/", api.ItemSkipApi.as_view(), name="api-review-skip"),
    path(
        "reviews/items/<int:item_id>/heartbeat/",
        api.ItemHeartbeatApi.as_view(),
        name="api-review-heartbeat",
    ),
    path(
        "reviews/annotations/<int:annotation_id>/undo/",
        api.AnnotationUndoApi.as_view(),
        name="api-review-undo",
    ),
    path("reviews/flags/", api.TraceFlagApi.as_view(), name="api-review-flag"),
    path("scores/", scores_api.ScoresApi.as_view(), name="api-scores"),
    path("export/traces/", export_api.TraceExportApi.as_view(), name="api-export-traces"),
]
