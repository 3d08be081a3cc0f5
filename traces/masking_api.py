"""Masking rules over the API: list, create, change and delete a project's rules, read who
changed them, and try the rules on a text. Curators only: the rules say what is kept."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsCurator
from core.errors import ApplicationError
from traces.masking.rules import masker_build, rule_create, rule_delete, rule_update
from traces.models import MaskingRule, MaskingRuleChange, Project

RULE_FIELDS = ("id", "kind", "detector", "pattern", "label", "action", "enabled")
PREVIEW_MAX_CHARS = 100_000


RULE_OUT = inline_serializer(
    "MaskingRule",
    {
        "id": serializers.IntegerField(),
        "kind": serializers.ChoiceField(MaskingRule.Kind.choices),
        "detector": serializers.CharField(),
        "pattern": serializers.CharField(),
        "label": serializers.CharField(),
        "action": serializers.ChoiceField(MaskingRule.Action.choices),
        "enabled": serializers.BooleanField(),
        "created_at": serializers.DateTimeField(),
        "updated_at": serializers.DateTimeField(),
    },
)
RULE_IN = inline_serializer(
    "MaskingRuleIn",
    {
        "kind": serializers.ChoiceField(MaskingRule.Kind.choices),
        "detector": serializers.CharField(required=False),
        "pattern": serializers.CharField(required=False),
        "label": serializers.CharField(required=False),
        "action": serializers.ChoiceField(MaskingRule.Action.choices, required=False),
        "enabled": serializers.BooleanField(required=False),
    },
)
RULES_OUT = inline_serializer("MaskingRules", {"results": serializers.ListField(child=RULE_OUT)})
CHANGES_OUT = inline_serializer(
    "MaskingRuleChanges",
    {
        "results": inline_serializer(
            "MaskingRuleChange",
            {
                "rule_id": serializers.IntegerField(),
                "user": serializers.CharField(),
                "action": serializers.CharField(),
                "before": serializers.JSONField(allow_null=True),
                "after": serializers.JSONField(allow_null=True),
                "at": serializers.DateTimeField(),
            },
            many=True,
        )
    },
)
PREVIEW_IN = inline_serializer("MaskingPreviewIn", {"text": serializers.CharField()})
PREVIEW_OUT = inline_serializer("MaskingPreview", {"masked": serializers.CharField()})


def rule_json(rule: MaskingRule) -> dict:
    return {
        **{name: getattr(rule, name) for name in RULE_FIELDS},
        "created_at": rule.created_at,
        "updated_at": rule.updated_at,
    }


def _body(request) -> dict:
    if not isinstance(request.data, dict):
        raise ApplicationError("Send a JSON object.", field="body")
    unknown = sorted(set(request.data) - set(RULE_FIELDS[1:]))
    if unknown:
        raise ApplicationError(f"Unknown field {unknown[0]!r}.", field=unknown[0])
    return dict(request.data)


class MaskingRulesApi(APIView):
    permission_classes = [IsCurator]

    @extend_schema(responses=RULES_OUT, operation_id="masking_rules_list")
    def get(self, request, slug: str):
        project = get_object_or_404(Project, slug=slug)
        return Response({"results": [rule_json(rule) for rule in project.masking_rules.all()]})

    @extend_schema(request=RULE_IN, responses={201: RULE_OUT}, operation_id="masking_rule_create")
    def post(self, request, slug: str):
        project = get_object_or_404(Project, slug=slug)
        rule = rule_create(project, _body(request), request.user)
        return Response(rule_json(rule), status=status.HTTP_201_CREATED)


class MaskingRuleApi(APIView):
    permission_classes = [IsCurator]

    def _rule(self, slug: str, rule_id: int) -> MaskingRule:
        return get_object_or_404(MaskingRule, project__slug=slug, pk=rule_id)

    @extend_schema(responses=RULE_OUT, operation_id="masking_rule_retrieve")
    def get(self, request, slug: str, rule_id: int):
        return Response(rule_json(self._rule(slug, rule_id)))

    @extend_schema(request=RULE_IN, responses=RULE_OUT, operation_id="masking_rule_update")
    def patch(self, request, slug: str, rule_id: int):
        rule = rule_update(self._rule(slug, rule_id), _body(request), request.user)
        return Response(rule_json(rule))

    @extend_schema(responses={204: None}, operation_id="masking_rule_delete")
    def delete(self, request, slug: str, rule_id: int):
        rule_delete(self._rule(slug, rule_id), request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MaskingChangesApi(APIView):
    permission_classes = [IsCurator]

    @extend_schema(responses=CHANGES_OUT, operation_id="masking_changes_list")
    def get(self, request, slug: str):
        project = get_object_or_404(Project, slug=slug)
        changes = MaskingRuleChange.objects.filter(project=project)[:200]
        return Response(
            {
                "results": [
                    {
                        "rule_id": change.rule_id,
                        "user": change.username,
                        "action": change.action,
                        "before": change.before,
                        "after": change.after,
                        "at": change.at,
                    }
                    for change in changes
                ]
            }
        )


class MaskingPreviewApi(APIView):
    """What the project's enabled rules make of a text, without storing anything."""

    permission_classes = [IsCurator]

    @extend_schema(request=PREVIEW_IN, responses=PREVIEW_OUT, operation_id="masking_preview")
    def post(self, request, slug: str):
        project = get_object_or_404(Project, slug=slug)
        text = request.data.get("text") if isinstance(request.data, dict) else None
        if not isinstance(text, str):
            raise ApplicationError("text is required and is a string.", field="text")
        if len(text) > PREVIEW_MAX_CHARS:
            raise ApplicationError(
                f"text is at most {PREVIEW_MAX_CHARS:,} characters.", field="text"
            )
        masker = masker_build(project.pk)
        return Response({"masked": masker.text(text) if masker else text})
