"""Golden API for deleting examples: chosen ids or an example-list filter, all or nothing."""

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.idempotency import idempotent_post
from accounts.permissions import IsCurator
from core.api_fields import RowIdsField, exactly_one_given, rows_chosen
from golden.deletion import MAX_EXAMPLES_DELETED_AT_ONCE, golden_examples_delete
from golden.selectors import golden_example_list, golden_examples_visible
from golden.serializers import ExampleFilterIn


class ExamplesDeleteIn(serializers.Serializer):
    ids = RowIdsField(max_length=MAX_EXAMPLES_DELETED_AT_ONCE)
    filter = ExampleFilterIn(required=False)

    def validate(self, data):
        exactly_one_given(data, "ids", "filter")
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
        return rows_chosen(golden_examples_visible(user), data["ids"], field="ids", noun="examples")
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
