"""Input and output shapes of the golden API."""

from rest_framework import serializers

from golden.example_schema import CONTENT_FIELDS
from golden.models import AdversarialKind, DatasetVersion, GoldenExample
from golden.selectors import version_visible_count


class GoldenExampleOutSerializer(serializers.ModelSerializer):
    outcome_rubric = serializers.SlugRelatedField(
        slug_field="name", read_only=True, allow_null=True
    )
    source_trace = serializers.SlugRelatedField(
        slug_field="external_id", read_only=True, allow_null=True
    )
    created_by = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )

    class Meta:
        model = GoldenExample
        # The dataset content, then where the example came from and who keeps it.
        fields = (
            "id",
            *CONTENT_FIELDS,
            "origin",
            "draft",
            "source_trace",
            "source_review_item",
            "created_by",
            "created_at",
            "updated_at",
        )
        read_only_fields = fields


class GoldenExampleInSerializer(serializers.Serializer):
    """Field types here; the rules of trajectories and red flags are checked by the service."""

    task = serializers.CharField()
    task_type = serializers.CharField(required=False, allow_blank=True, max_length=100)
    context = serializers.JSONField(required=False)
    reference_trajectory = serializers.JSONField(required=False)
    expected_outcome = serializers.CharField(required=False, allow_blank=True)
    outcome_rubric = serializers.CharField(required=False, allow_null=True, allow_blank=True)
    expected_behavior = serializers.CharField(required=False, allow_blank=True)
    failure_tags = serializers.ListField(child=serializers.CharField(), required=False)
    red_flags = serializers.JSONField(required=False)
    tool_world = serializers.JSONField(
        required=False, help_text="Tools, recorded results and fault variants: docs/tool-worlds.md."
    )
    adversarial_kind = serializers.ChoiceField(
        choices=AdversarialKind.choices, required=False, allow_blank=True
    )
    held_out = serializers.BooleanField(required=False)
    allow_duplicate = serializers.BooleanField(
        required=False, default=False, help_text="Save even when near-duplicates exist."
    )


class PromoteInSerializer(serializers.Serializer):
    item = serializers.IntegerField(help_text="A resolved review item id.")


class HeldOutDrawInSerializer(serializers.Serializer):
    share = serializers.FloatField(help_text="Share held out per task type, 0 to 0.5.")
    seed = serializers.IntegerField(required=False, allow_null=True)
    task_type = serializers.CharField(
        required=False, allow_null=True, allow_blank=True, help_text="Redraw only this type."
    )


class DatasetVersionOutSerializer(serializers.ModelSerializer):
    created_by = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    example_count = serializers.SerializerMethodField()

    class Meta:
        model = DatasetVersion
        fields = ("id", "name", "note", "content_hash", "example_count", "created_by", "created_at")
        read_only_fields = fields

    def get_example_count(self, version) -> int:
        return version_visible_count(self.context["request"].user, version)


class DatasetVersionInSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    note = serializers.CharField(required=False, allow_blank=True, default="")


class DatasetImportInSerializer(serializers.Serializer):
    open_file = serializers.FileField()
    held_out_file = serializers.FileField(required=False)
    version_name = serializers.CharField(required=False, allow_blank=True, default="")
    note = serializers.CharField(required=False, allow_blank=True, default="")


YES_NO = ("", "yes", "no")


class ExampleFilterIn(serializers.Serializer):
    """The example list's filter, as GET /api/golden/examples/ takes it."""

    task_type = serializers.CharField(required=False, allow_blank=True, max_length=100)
    held_out = serializers.ChoiceField(YES_NO, required=False)
    draft = serializers.ChoiceField(YES_NO, required=False)
    q = serializers.CharField(required=False, allow_blank=True, max_length=200)
