"""Golden API: examples, promotion, held-out draw, versions, export, import, diff, health."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, OpenApiTypes, extend_schema
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.idempotency import idempotent_post
from accounts.permissions import IsAnnotator, IsCurator
from core.errors import ApplicationError
from core.pagination import ApiPagination
from golden.deletion import golden_examples_delete
from golden.example_schema import ExampleInvalid
from golden.jsonl import ImportInvalid, dataset_import_jsonl
from golden.models import GoldenExample
from golden.selectors import (
    EXAMPLE_ORDER,
    dataset_health,
    dataset_version_diff,
    dataset_version_get_for_user,
    dataset_version_list,
    golden_example_get_for_user,
    golden_example_list,
)
from golden.serializers import (
    DatasetImportInSerializer,
    DatasetVersionInSerializer,
    DatasetVersionOutSerializer,
    ExampleFilterIn,
    GoldenExampleInSerializer,
    GoldenExampleOutSerializer,
    HeldOutDrawInSerializer,
    PromoteInSerializer,
)
from golden.services import (
    NearDuplicateFound,
    dataset_version_create,
    golden_example_create,
    golden_example_promote_item,
    golden_example_update,
    held_out_draw,
)
from golden.views.versions import version_export_response
from reviews.models import ReviewItem


class _ReadAnnotatorWriteCurator(APIView):
    def get_permissions(self):
        if self.request.method in ("GET", "HEAD", "OPTIONS"):
            return [IsAnnotator()]
        return [IsCurator()]


def _example_write(write, **kwargs):
    """Run an example service, turning its rule errors into the one API error shape."""
    try:
        return write(**kwargs)
    except ExampleInvalid as exc:
        raise ValidationError({path: [message] for path, message in exc.errors.items()}) from exc
    except NearDuplicateFound as exc:
        raise ApplicationError(
            str(exc), field="task", code="near_duplicate", status_code=status.HTTP_409_CONFLICT
        ) from exc


class GoldenExampleListView(_ReadAnnotatorWriteCurator):
    pagination_class = ApiPagination
    page_ordering = EXAMPLE_ORDER

    @extend_schema(
        parameters=[
            OpenApiParameter("task_type", str),
            OpenApiParameter("held_out", str, enum=["yes", "no"]),
            OpenApiParameter("draft", str, enum=["yes", "no"]),
            OpenApiParameter("q", str),
        ],
        responses=GoldenExampleOutSerializer(many=True),
    )
    def get(self, request):
        given = ExampleFilterIn(data=request.query_params)
        given.is_valid(raise_exception=True)
        examples = golden_example_list(
            request.user,
            task_type=given.validated_data.get("task_type", ""),
            held_out=given.validated_data.get("held_out", ""),
            draft=given.validated_data.get("draft", ""),
            query=given.validated_data.get("q", ""),
        ).select_related("outcome_rubric")
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(examples, request, view=self)
        return paginator.get_paginated_response(GoldenExampleOutSerializer(page, many=True).data)

    @extend_schema(request=GoldenExampleInSerializer, responses={201: GoldenExampleOutSerializer})
    @idempotent_post
    def post(self, request):
        serializer = GoldenExampleInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        allow = data.pop("allow_duplicate", False)
        example = _example_write(
            golden_example_create, data=data, user=request.user, allow_duplicate=allow
        )
        return Response(GoldenExampleOutSerializer(example).data, status=status.HTTP_201_CREATED)


class GoldenExampleDetailView(_ReadAnnotatorWriteCurator):
    @extend_schema(responses=GoldenExampleOutSerializer)
    def get(self, request, pk: int):
        example = golden_example_get_for_user(request.user, pk)
        return Response(GoldenExampleOutSerializer(example).data)

    @extend_schema(request=GoldenExampleInSerializer, responses=GoldenExampleOutSerializer)
    def patch(self, request, pk: int):
        example = golden_example_get_for_user(request.user, pk)
        serializer = GoldenExampleInSerializer(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        allow = data.pop("allow_duplicate", False)
        example = _example_write(
            golden_example_update,
            example=example,
            data=data,
            user=request.user,
            allow_duplicate=allow,
        )
        return Response(GoldenExampleOutSerializer(example).data)

    @extend_schema(request=None, responses={204: None})
    def delete(self, request, pk: int):
        """Delete the example; dataset versions keep their copies (golden.deletion)."""
        example = golden_example_get_for_user(request.user, pk)
        golden_examples_delete(
            examples=GoldenExample.objects.filter(pk=example.pk), user=request.user
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class GoldenExamplePromoteView(APIView):
    permission_classes = [IsCurator]

    @extend_schema(request=PromoteInSerializer, responses={201: GoldenExampleOutSerializer})
    @idempotent_post
    def post(self, request):
        serializer = PromoteInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        item = get_object_or_404(ReviewItem, pk=serializer.validated_data["item"])
        example = golden_example_promote_item(item=item, user=request.user)
        return Response(GoldenExampleOutSerializer(example).data, status=status.HTTP_201_CREATED)


class HeldOutDrawView(APIView):
    permission_classes = [IsCurator]

    @extend_schema(
        request=HeldOutDrawInSerializer,
        responses={200: OpenApiTypes.OBJECT},
        description="Redraw the held-out subset: a random share within each task type.",
    )
    def post(self, request):
        serializer = HeldOutDrawInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        counts = held_out_draw(user=request.user, **serializer.validated_data)
        return Response({"held_out_by_task_type": counts})


class DatasetVersionListView(_ReadAnnotatorWriteCurator):
    @extend_schema(responses=DatasetVersionOutSerializer(many=True))
    def get(self, request):
        versions = dataset_version_list(request.user)
        context = {"request": request}
        return Response(DatasetVersionOutSerializer(versions, many=True, context=context).data)

    @extend_schema(request=DatasetVersionInSerializer, responses={201: DatasetVersionOutSerializer})
    @idempotent_post
    def post(self, request):
        serializer = DatasetVersionInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        version = dataset_version_create(user=request.user, **serializer.validated_data)
        data = DatasetVersionOutSerializer(version, context={"request": request}).data
        return Response(data, status=status.HTTP_201_CREATED)


class DatasetVersionDetailView(APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(responses=DatasetVersionOutSerializer)
    def get(self, request, pk: int):
        version = dataset_version_get_for_user(request.user, pk)
        return Response(DatasetVersionOutSerializer(version, context={"request": request}).data)


class DatasetVersionExportView(APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(
        parameters=[OpenApiParameter("part", str, enum=["open", "held_out"], default="open")],
        responses={(200, "application/x-ndjson"): OpenApiTypes.STR},
        description="One example a line. The held-out part is only for the curator role.",
    )
    def get(self, request, pk: int):
        version = dataset_version_get_for_user(request.user, pk)
        return version_export_response(
            request.user, version, request.query_params.get("part", "open")
        )


class DatasetVersionDiffView(APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(
        parameters=[
            OpenApiParameter("old", int, required=True),
            OpenApiParameter("new", int, required=True),
        ],
        responses={200: OpenApiTypes.OBJECT},
    )
    def get(self, request):
        ids = {}
        for name in ("old", "new"):
            try:
                ids[name] = int(request.query_params.get(name, ""))
            except ValueError as exc:
                raise ApplicationError("Give a version id.", field=name) from exc
        old = dataset_version_get_for_user(request.user, ids["old"])
        new = dataset_version_get_for_user(request.user, ids["new"])
        return Response(
            {"old": old.name, "new": new.name, **dataset_version_diff(request.user, old, new)}
        )


class DatasetImportView(APIView):
    permission_classes = [IsCurator]
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(request=DatasetImportInSerializer, responses={201: OpenApiTypes.OBJECT})
    @idempotent_post
    def post(self, request):
        serializer = DatasetImportInSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        sources = [(data["open_file"].name, data["open_file"])]
        if data.get("held_out_file"):
            sources.append((data["held_out_file"].name, data["held_out_file"]))
        try:
            result = dataset_import_jsonl(
                sources=sources,
                user=request.user,
                version_name=data["version_name"],
                note=data["note"],
            )
        except ImportInvalid as exc:
            fields = {f"{e.source}:{e.line}.{e.field}": [e.message] for e in exc.errors}
            raise ValidationError(fields) from exc
        body = {
            "created": result.created,
            "updated": result.updated,
            "version": None,
            "warnings": result.warnings,
            "outcome_only": result.outcome_only,
        }
        if result.version:
            body["version"] = DatasetVersionOutSerializer(
                result.version, context={"request": request}
            ).data
        return Response(body, status=status.HTTP_201_CREATED)


class DatasetHealthView(APIView):
    permission_classes = [IsAnnotator]

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request):
        health = dataset_health(request.user)
        return Response(
            {
                "size": health["size"],
                "held_out": health["held_out"],
                "guidance": health["guidance"],
                "task_types": health["task_types"],
                "failure_modes": health["failure_modes"],
                "never_run": [row["pk"] for row in health["never_run"]],
                "always_passing": [row["pk"] for row in health["always_passing"]],
            }
        )
