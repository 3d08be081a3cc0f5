"""Golden API for deleting examples: chosen ids or an example-list filter, all or nothing."""

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.idempotency import idempotent_post
from accounts.permissions import IsCurator
from core.api_fields import RowIdField
from core.errors import ApplicationError
from golden.deletion import MAX_EXAMPLES_DELETED_AT_ONCE, golden_examples_delete
from golden.selectors import golden_example_list, golden_examples_visible
from golden.serializers import ExampleFilterIn


class ExamplesDeleteIn(serializers.Serializer):
    ids = serializers.ListField(
        child=RowIdField(),
        required=False,
        allow_empty=False,
        max_length=MAX_EXAMPLES_DELETED_AT_ONCE,
    )
    filter = ExampleFilterIn(required=False)

    def validate(self, data):
        if ("ids" in data) == ("filter" in data):
            raise serializers.ValidationError({"ids": "Give exactly one of ids or filter."})
        return data


ExamplesDeleteOut = inline_serializer(
    "GoldenExamplesDeleted",
    {
        "deleted": serializers.IntegerField(),
        "released_traces": serializers.IntegerField(
            help_text="Traces no longer held out now that their examples are gone."
        ),
    },
)


def _selected_examples(user, data):
    if "ids" in data:
        wanted = set(data["ids"])
        examples = golden_examples_visible(user).filter(pk__in=wanted)
        missing = sorted(wanted - set(examples.values_list("pk", flat=True)))
        if missing:
            shown = ", ".join(map(str, missing[:10]))
            raise ApplicationError(f"No such examples: {shown}.", field="ids")
        return examples
    given = data["filter"]
    return golden_example_list(
        user,
        task_type=given.get("task_type", ""),
        held_out=given.get("held_out", ""),
        draft=given.get("draft", ""),
        query=given.get("q", ""),
    )


class GoldenExamplesDeleteApi(APIView):
    """Delete golden examples. Dataset versions keep their copies; each example's content is
    kept in its audit event; traces the examples held out are released."""

    permission_classes = [IsCurator]

    @extend_schema(
        request=ExamplesDeleteIn,
        responses=ExamplesDeleteOut,
        operation_id="golden_examples_delete",
    )
    @idempotent_post
    def post(self, request):
        incoming = ExamplesDeleteIn(data=request.data)
        incoming.is_valid(raise_exception=True)
        examples = _selected_examples(request.user, incoming.validated_data)
        report = golden_examples_delete(examples=examples, user=request.user)
        return Response({"deleted": report.deleted, "released_traces": report.released_traces})
