from django.urls import path

from golden import api, collect_api, deletion_api
from golden.evals import api as evals_api
from golden.worlds import api as worlds_api
from golden.worlds.mcp_endpoint import tool_world_mcp

urlpatterns = [
    path("golden/examples/", api.GoldenExampleListView.as_view(), name="api-golden-examples"),
    path(
        "golden/examples/<int:pk>/",
        api.GoldenExampleDetailView.as_view(),
        name="api-golden-example",
    ),
    path(
        "golden/examples/from-traces/",
        collect_api.GoldenCollectApi.as_view(),
        name="api-golden-collect",
    ),
    path(
        "golden/examples/delete/",
        deletion_api.GoldenExamplesDeleteApi.as_view(),
        name="api-golden-examples-delete",
    ),
    path(
        "golden/examples/<int:pk>/confirm/",
        collect_api.GoldenConfirmApi.as_view(),
        name="api-golden-confirm",
    ),
    path(
        "golden/examples/promote/",
        api.GoldenExamplePromoteView.as_view(),
        name="api-golden-promote",
    ),
    path("golden/held-out/draw/", api.HeldOutDrawView.as_view(), name="api-golden-held-out"),
    path("golden/versions/", api.DatasetVersionListView.as_view(), name="api-golden-versions"),
    path("golden/versions/diff/", api.DatasetVersionDiffView.as_view(), name="api-golden-diff"),
    path(
        "golden/versions/<int:pk>/",
        api.DatasetVersionDetailView.as_view(),
        name="api-golden-version",
    ),
    path(
        "golden/versions/<int:pk>/export/",
        api.DatasetVersionExportView.as_view(),
        name="api-golden-export",
    ),
    path("golden/import/", api.DatasetImportView.as_view(), name="api-golden-import"),
    path("golden/health/", api.DatasetHealthView.as_view(), name="api-golden-health"),
    path("eval-runs/", evals_api.EvalRunListView.as_view(), name="api-eval-runs"),
    path("eval-runs/<int:pk>/", evals_api.EvalRunDetailView.as_view(), name="api-eval-run"),
    path(
        "eval-runs/<int:pk>/score/",
        evals_api.EvalRunScoreView.as_view(),
        name="api-eval-run-score",
    ),
    path(
        "eval-runs/<int:pk>/traces/",
        evals_api.EvalRunTracesView.as_view(),
        name="api-eval-run-traces",
    ),
    path(
        "eval-runs/<int:pk>/judge/",
        evals_api.EvalRunJudgeView.as_view(),
        name="api-eval-run-judge",
    ),
    path("gate/", evals_api.GateView.as_view(), name="api-gate"),
    path(
        "eval-runs/<int:pk>/tool-worlds/start/",
        worlds_api.ToolWorldsStartView.as_view(),
        name="api-tool-worlds-start",
    ),
    path(
        "eval-runs/<int:pk>/tool-worlds/finish/",
        worlds_api.ToolWorldsFinishView.as_view(),
        name="api-tool-worlds-finish",
    ),
    path(
        "eval-runs/<int:pk>/trials/<int:trial_id>/tool-calls/",
        worlds_api.TrialToolCallsView.as_view(),
        name="api-trial-tool-calls",
    ),
    path(
        "tool-worlds/<int:trial_id>/tools",
        worlds_api.ToolWorldToolsView.as_view(),
        name="api-tool-world-tools",
    ),
    path(
        "tool-worlds/<int:trial_id>/tools/<str:name>",
        worlds_api.ToolWorldCallView.as_view(),
        name="api-tool-world-call",
    ),
    path("tool-worlds/<int:trial_id>/mcp", tool_world_mcp, name="api-tool-world-mcp"),
]
