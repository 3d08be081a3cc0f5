"""docs/otel-collector.yaml forwards traces and logs to endpoints evalsite serves."""

from pathlib import Path

import yaml
from django.urls import resolve

from traces.api import OtlpLogExportApi, OtlpTraceExportApi

CONFIG = Path(__file__).resolve().parents[2] / "docs" / "otel-collector.yaml"


def test_both_pipelines_export_to_evalsite_over_otlp_http():
    config = yaml.safe_load(CONFIG.read_text())
    pipelines = config["service"]["pipelines"]
    assert set(pipelines) == {"traces", "logs"}
    for pipeline in pipelines.values():
        assert pipeline["receivers"] == ["otlp"]
        (exporter,) = pipeline["exporters"]
        assert exporter.split("/")[0] == "otlphttp"
    exporter = config["exporters"]["otlphttp/evalsite"]
    assert set(exporter["headers"]) == {"Authorization", "x-evalsite-project"}
    assert exporter["encoding"] == "proto" and exporter["compression"] == "gzip"
    assert {"grpc", "http"} <= set(config["receivers"]["otlp"]["protocols"])


def test_the_paths_the_exporter_appends_are_served():
    # The otlphttp exporter posts to <endpoint>/v1/traces and <endpoint>/v1/logs.
    assert resolve("/v1/traces").func.view_class is OtlpTraceExportApi
    assert resolve("/v1/logs").func.view_class is OtlpLogExportApi
