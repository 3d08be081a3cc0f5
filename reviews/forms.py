"""Forms of the review pages: queue filters, resolving, bulk actions, saved views."""

from django import forms
from django.contrib.auth import get_user_model
from django.db.models import Q

from accounts.roles import ROLE_ORDER
from judges.models import ScoreType
from reviews.bulk import BULK_ACTIONS
from reviews.models import FailureTag, JudgeAssist, Queue, QueueKind, ReviewReason, ReviewStatus


class QueueFilterForm(forms.Form):
    status = forms.ChoiceField(
        required=False,
        choices=[
            ("", "Open"),
            (ReviewStatus.RESOLVED, "Resolved"),
            (ReviewStatus.CLOSED, "Closed"),
            ("all", "All"),
        ],
    )
    reason = forms.ChoiceField(required=False, choices=[("", "Any reason"), *ReviewReason.choices])
    claim = forms.ChoiceField(
        required=False,
        choices=[("", "Anyone"), ("free", "Free"), ("held", "Claimed"), ("mine", "Claimed by me")],
    )
    curator = forms.ChoiceField(
        required=False,
        choices=[("", "Any"), ("yes", "Waiting for a curator"), ("no", "Not for a curator")],
    )
    assigned = forms.ChoiceField(required=False, choices=[("", "Anyone"), ("me", "Assigned to me")])
    q = forms.CharField(required=False, max_length=200, label="Task contains")

    def filters(self) -> dict:
        """Cleaned filters; an invalid value is ignored rather than failing the page."""
        return self.cleaned_data if self.is_valid() else {}


class ResolveForm(forms.Form):
    # Not required here: criteria rubrics score from the yes/no answers instead.
    score = forms.FloatField(required=False)
    explanation = forms.CharField(required=False, widget=forms.Textarea, max_length=20_000)
    failure_tags = forms.MultipleChoiceField(
        required=False, choices=FailureTag.choices, widget=forms.CheckboxSelectMultiple
    )
    custom_tags = forms.CharField(
        required=False, max_length=600, help_text="Other failure modes, separated by commas."
    )
    promote = forms.BooleanField(required=False)

    def criteria_answers(self, count: int) -> list[bool] | None:
        """criterion_0 .. criterion_{count-1} as booleans; None when the rubric has none."""
        if not count:
            return None
        return [self.data.get(f"criterion_{i}") == "yes" for i in range(count)]

    def criteria_missing(self, count: int) -> bool:
        return any(self.data.get(f"criterion_{i}") not in ("yes", "no") for i in range(count))

    def tags(self) -> list[str]:
        custom = [t for t in self.cleaned_data.get("custom_tags", "").split(",") if t.strip()]
        return [*self.cleaned_data.get("failure_tags", []), *custom]


class CommentForm(forms.Form):
    text = forms.CharField(max_length=5000, widget=forms.Textarea)


class FlagForm(forms.Form):
    note = forms.CharField(required=False, max_length=5000)


class BulkActionForm(forms.Form):
    action = forms.ChoiceField(choices=[(a, a) for a in BULK_ACTIONS])
    select_all = forms.BooleanField(required=False)
    item_ids = forms.CharField(required=False)
    assignee = forms.ModelChoiceField(
        required=False, queryset=get_user_model().objects.none(), to_field_name="username"
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["assignee"].queryset = (
            get_user_model()
            .objects.filter(Q(groups__name__in=ROLE_ORDER) | Q(is_superuser=True))
            .distinct()
        )

    def clean(self):
        data = super().clean()
        if not data.get("select_all") and not self.selected_ids():
            raise forms.ValidationError("Tick items, or choose every item matching the filter.")
        return data

    def selected_ids(self) -> list[int]:
        raw = self.data.getlist("item_ids") if hasattr(self.data, "getlist") else []
        return [int(v) for v in raw if str(v).isdigit()]


class SavedViewForm(forms.Form):
    name = forms.CharField(max_length=100)
    query = forms.CharField(required=False, max_length=1000)


class QueueForm(forms.ModelForm):
    """A curator names a queue for a rubric or a project and sets how it is worked."""

    class Meta:
        model = Queue
        fields = [
            "name",
            "kind",
            "rubric",
            "project",
            "priority",
            "blind",
            "annotators_per_item",
            "audit_sample_rate",
            "judge_assist",
            "judge_config",
            "judge_answers_confirm_gate",
        ]
        help_texts = {
            "annotators_per_item": "Items settle when this many people agree, or a curator rules.",
            "audit_sample_rate": "Share of agreed verdicts of the rubric sent here (0 to 1).",
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Left out, a queue is an ordinary one (older clients send no kind).
        self.fields["kind"].required = False
        # Left out too, a queue has no pairwise judge.
        self.fields["judge_assist"].required = False

    def clean_kind(self):
        kind = self.cleaned_data.get("kind") or QueueKind.SINGLE
        changed = self.instance.pk and kind != self.instance.kind
        if changed and self.instance.items.exists():
            raise forms.ValidationError(
                "This queue has items of its kind already; make a new queue for the other kind."
            )
        return kind

    def clean_annotators_per_item(self):
        value = self.cleaned_data["annotators_per_item"]
        if not 1 <= value <= 10:
            raise forms.ValidationError("Between 1 and 10 people per item.")
        return value

    def clean_judge_assist(self):
        return self.cleaned_data.get("judge_assist") or JudgeAssist.OFF

    def clean(self):
        cleaned = super().clean()
        assist = cleaned.get("judge_assist") or JudgeAssist.OFF
        if assist != JudgeAssist.OFF and cleaned.get("kind") != QueueKind.PAIRWISE:
            self.add_error("judge_assist", "Only a pairwise queue has a pairwise judge.")
        rubric = cleaned.get("rubric")
        latest = rubric.latest_version() if rubric else None
        if assist != JudgeAssist.OFF and (
            latest is None or latest.score_type != ScoreType.PAIRWISE
        ):
            self.add_error(
                "judge_assist",
                "Pick a pairwise rubric (such as Pairwise preference) for the judge.",
            )
        return cleaned

    def clean_audit_sample_rate(self):
        value = self.cleaned_data["audit_sample_rate"]
        if not 0 <= value <= 1:
            raise forms.ValidationError("A share between 0 and 1, such as 0.05.")
        return value
