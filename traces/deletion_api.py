"""Trace API for deleting traces: chosen ids (all or nothing) or a trace-list filter, at once
or, for any number, in the background."""

from django.db import transaction
from django.http import QueryDict
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.idempotency import idempotent_post
from accounts.permissions import IsCurator
from core.api_fields import RowIdsField, exactly_one_given, rows_chosen
from core.pagination import ApiPagination
from traces.api import ERROR_OUT
from traces.deletion import MAX_TRACES_DELETED_AT_ONCE, traces_delete_requested
from traces.deletion_jobs import trace_deletion_start, trace_deletion_stop
from traces.filters import filter_query, traces_for_filter_fields, traces_for_query
from traces.models import Trace, TraceDeletion
from traces.selectors import traces_visible


class TracesDeleteIn(serializers.Serializer):
    ids = RowIdsField(
        max_length=MAX_TRACES_DELETED_AT_ONCE,
        help_text="These traces, all or nothing: one that something keeps refuses the request.",
    )
    filter = serializers.DictField(
        child=serializers.CharField(),
        required=False,
        help_text="Trace-list filter parameters, as GET /api/traces/ takes them; the traces "
        "something keeps are left and reported.",
    )

    def validate(self, data):
        exactly_one_given(data, "ids", "filter")
        return data


TracesDeleteOut = inline_serializer(
    "TracesDeleted",
    {
        "deleted": serializers.IntegerField(),
        "kept": serializers.ListField(
            child=serializers.IntegerField(), help_text="The filter's traces left in place."
        ),
        "kept_by": serializers.DictField(
            child=serializers.IntegerField(), help_text="Those, counted by what keeps them."
        ),
    },
)


class TracesDeleteApi(APIView):
    """Delete traces with their spans, verdicts, judgments, red flags and feedback. A trace that
    a golden example, review items, an eval run's trial or a running judge run keeps stays."""

    permission_classes = [IsCurator]

    @extend_schema(
        request=TracesDeleteIn,
        responses={
            200: TracesDeleteOut,
            409: OpenApiResponse(
                ERROR_OUT, description="Chosen ids of which some are kept: nothing deleted."
            ),
        },
        operation_id="traces_delete",
    )
    @idempotent_post
    def post(self, request):
        incoming = TracesDeleteIn(data=request.data)
        incoming.is_valid(raise_exception=True)
        data = incoming.validated_data
        visible = traces_visible(request.user, Trace.objects.all())
        if "ids" in data:
            traces = rows_chosen(visible, data["ids"], field="ids", noun="traces")
            report = traces_delete_requested(
                traces=traces, user=request.user, all_or_nothing=True, field_name="ids"
            )
        else:
            traces = traces_for_filter_fields(visible, data["filter"])
            report = traces_delete_requested(
                traces=traces, user=request.user, all_or_nothing=False, field_name="filter"
            )
        return Response(
            {"deleted": report.deleted, "kept": list(report.kept_ids), "kept_by": report.kept_by}
        )


class TraceDeletionIn(serializers.Serializer):
    filter = serializers.DictField(
        child=serializers.CharField(),
        help_text="Trace-list filter parameters, as GET /api/traces/ takes them ({} is every "
        "trace you can see). Traces newer than the request are not deleted.",
    )


class TraceDeletionOut(serializers.ModelSerializer):
    filter = serializers.SerializerMethodField()
    requested_by = serializers.SerializerMethodField()

    class Meta:
        model = TraceDeletion
        fields = [
            "id",
            "status",
            "filter",
            "up_to_trace_id",
            "matched",
            "deleted",
            "kept",
            "kept_by",
            "kept_sample",
            "error",
            "requested_by",
            "created_at",
            "updated_at",
            "finished_at",
        ]

    def get_filter(self, deletion) -> dict[str, str]:
        return dict(QueryDict(deletion.query).items())

    def get_requested_by(self, deletion) -> str | None:
        return deletion.created_by.get_username() if deletion.created_by else None


class TraceDeletionListCreateApi(APIView):
    """Background deletions of a trace-list filter's traces, any number, a chunk at a time."""

    permission_classes = [IsCurator]
    pagination_class = ApiPagination
    page_ordering = ("-id",)

    @extend_schema(
        responses=TraceDeletionOut(many=True),
        operation_id="trace_deletion_list",
        description="Background deletions, newest first.",
    )
    def get(self, request):
        deletions = TraceDeletion.objects.select_related("created_by")
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(deletions, request, view=self)
        return paginator.get_paginated_response(TraceDeletionOut(page, many=True).data)

    @extend_schema(
        request=TraceDeletionIn,
        responses={202: TraceDeletionOut},
        operation_id="trace_deletion_start",
        description="202 with the deletion; a worker deletes its traces, those something keeps "
        "left and counted by reason. Follow it at /api/traces/deletions/{id}/.",
    )
    @idempotent_post
    def post(self, request):
        incoming = TraceDeletionIn(data=request.data)
        incoming.is_valid(raise_exception=True)
        query = filter_query(incoming.validated_data["filter"])
        visible = traces_visible(request.user, Trace.objects.all())
        with transaction.atomic():
            deletion = trace_deletion_start(
                user=request.user, traces=traces_for_query(visible, query), query=query
            )
        return Response(TraceDeletionOut(deletion).data, status=status.HTTP_202_ACCEPTED)


class TraceDeletionDetailApi(APIView):
    permission_classes = [IsCurator]

    @extend_schema(responses=TraceDeletionOut, operation_id="trace_deletion_read")
    def get(self, request, deletion_id: int):
        deletion = get_object_or_404(
            TraceDeletion.objects.select_related("created_by"), pk=deletion_id
        )
        return Response(TraceDeletionOut(deletion).data)


class TraceDeletionStopApi(APIView):
    permission_classes = [IsCurator]

    @extend_schema(
        request=None,
        responses={200: TraceDeletionOut, 409: ERROR_OUT},
        operation_id="trace_deletion_stop",
        description="Stop between chunks; what is deleted stays deleted. 409 once finished.",
    )
    def post(self, request, deletion_id: int):
        deletion = get_object_or_404(TraceDeletion, pk=deletion_id)
        deletion = trace_deletion_stop(deletion=deletion, user=request.user)
        return Response(TraceDeletionOut(deletion).data)
