"""Forms for the judging pages: a rubric version edit and a judge-run start."""

from django import forms

from judges.models import JudgeConfig, RubricVersion, RubricVersionStatus
from traces.models import Project


class RubricVersionForm(forms.ModelForm):
    evaluation_steps = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 6}),
        required=False,
        help_text="One step per line; the template shows them as {{ evaluation_steps }}.",
    )

    class Meta:
        model = RubricVersion
        fields = [
            "system_prompt",
            "user_template",
            "evaluation_steps",
            "rubric_text",
            "score_type",
            "score_min",
            "score_max",
            "output_format",
            "trace_format",
            "status",
            "note",
        ]
        widgets = {
            "system_prompt": forms.Textarea(attrs={"rows": 16, "spellcheck": "false"}),
            "user_template": forms.Textarea(attrs={"rows": 6, "spellcheck": "false"}),
            "rubric_text": forms.Textarea(attrs={"rows": 4}),
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance and self.instance.pk and not self.is_bound:
            self.initial["evaluation_steps"] = "\n".join(self.instance.evaluation_steps or [])

    def clean_evaluation_steps(self) -> list[str]:
        text = self.cleaned_data.get("evaluation_steps") or ""
        return [line.strip() for line in text.splitlines() if line.strip()]


class RubricOnlineForm(forms.Form):
    judge_new_traces = forms.BooleanField(required=False, label="Judge new traces")
    sample_rate = forms.FloatField(
        min_value=0.0, max_value=1.0, help_text="Share of new traces judged, e.g. 0.05."
    )


class JudgeRunForm(forms.Form):
    rubric_version = forms.ModelChoiceField(
        queryset=RubricVersion.objects.select_related("rubric")
        .filter(status=RubricVersionStatus.APPROVED)
        .order_by("rubric__name", "-number"),
    )
    config = forms.ModelChoiceField(queryset=JudgeConfig.objects.order_by("name"))
    trace_ids = forms.CharField(
        required=False,
        label="Trace ids",
        help_text="Comma- or space-separated. Leave empty to use the filter below.",
    )
    project = forms.ModelChoiceField(
        queryset=Project.objects.order_by("name"), required=False, to_field_name="slug"
    )
    agent_name = forms.CharField(required=False)
    agent_version = forms.CharField(required=False)
    task_type = forms.CharField(required=False)
    limit = forms.IntegerField(required=False, min_value=1, max_value=100_000)
    sample_rate = forms.FloatField(initial=1.0, min_value=0.001, max_value=1.0)

    def clean_trace_ids(self) -> list[int]:
        raw = (self.cleaned_data.get("trace_ids") or "").replace(",", " ").split()
        try:
            return [int(value) for value in raw]
        except ValueError:
            raise forms.ValidationError("Trace ids are whole numbers.") from None

    def trace_filter(self) -> dict:
        data = self.cleaned_data
        spec = {
            key: data[key]
            for key in ("agent_name", "agent_version", "task_type", "limit")
            if data.get(key)
        }
        if data.get("project"):
            spec["project"] = data["project"].slug
        return spec
