"""Forms for the judging pages: a rubric version edit and a judge-run start."""

from urllib.parse import urlsplit

from django import forms

from judges.models import JudgeConfig, RubricVersion, RubricVersionStatus
from judges.rubrics import SESSION_IDLE_MINUTES_MAX, VERSION_FIELDS
from judges.selectors import trace_external_ids_unknown
from traces.models import Project


class RubricVersionForm(forms.ModelForm):
    evaluation_steps = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 6}),
        required=False,
        help_text="One step per line; the template shows them as {{ evaluation_steps }}.",
    )

    class Meta:
        model = RubricVersion
        # Criteria have their own page (judges:adaptive_criteria).
        fields = [name for name in VERSION_FIELDS if name != "criteria"]
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
    judge_idle_sessions = forms.BooleanField(
        required=False,
        label="Judge idle sessions",
        help_text="Each conversation as a whole, once no trace of it came for the idle time.",
    )
    session_idle_minutes = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=SESSION_IDLE_MINUTES_MAX,
        label="Idle minutes",
        help_text="Empty: the site's SESSION_IDLE_MINUTES.",
    )
    sample_rate = forms.FloatField(
        min_value=0.0,
        max_value=1.0,
        help_text="Share of new traces and sessions judged, e.g. 0.05.",
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
        help_text="Hex trace ids as trace pages show them, comma- or space-separated.",
    )
    trace_list_query = forms.CharField(
        required=False,
        label="Trace list filter",
        help_text="A trace list address (or its ?query) to judge the traces it lists.",
    )
    last = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=100_000,
        label="The last N traces",
        help_text="The newest N traces, after the filters below.",
    )
    project = forms.ModelChoiceField(
        queryset=Project.objects.order_by("name"), required=False, to_field_name="slug"
    )
    agent_name = forms.CharField(required=False)
    agent_version = forms.CharField(required=False)
    task_type = forms.CharField(required=False)
    sample_rate = forms.FloatField(initial=1.0, min_value=0.001, max_value=1.0)

    def clean_trace_ids(self) -> list[str]:
        return (self.cleaned_data.get("trace_ids") or "").replace(",", " ").split()

    def clean_trace_list_query(self) -> str:
        value = (self.cleaned_data.get("trace_list_query") or "").strip()
        return urlsplit(value).query if "?" in value or "/" in value else value.lstrip("?")

    def clean(self):
        data = super().clean()
        ids = data.get("trace_ids") or []
        if ids:
            unknown = trace_external_ids_unknown(ids)
            if unknown:
                shown = ", ".join(unknown[:5]) + ("…" if len(unknown) > 5 else "")
                self.add_error("trace_ids", f"No trace has the id {shown}.")
        return data

    def trace_filter(self) -> dict:
        data = self.cleaned_data
        spec = {
            key: data[key] for key in ("agent_name", "agent_version", "task_type") if data.get(key)
        }
        if data.get("last"):
            spec["limit"] = data["last"]
        if data.get("project"):
            spec["project"] = data["project"].slug
        return spec


class RubricCreateForm(RubricVersionForm):
    """A new rubric's name and first version, from a seed rubric's version or from scratch."""

    name = forms.CharField(max_length=200)
    description = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))
    task_type = forms.CharField(
        max_length=100, required=False, help_text="Judge only traces of this task type."
    )
    field_order = ["name", "description", "task_type"]


class JudgeConfigForm(forms.Form):
    name = forms.CharField(max_length=200)
    provider = forms.ChoiceField(
        choices=[("anthropic", "Anthropic"), ("openai", "OpenAI-compatible (Chat Completions)")],
        initial="anthropic",
        required=False,
    )
    base_url = forms.URLField(
        required=False,
        assume_scheme="https",
        label="Base URL",
        help_text="OpenAI-compatible only, e.g. http://gpu-box:8000/v1 for a self-hosted model. "
        "Blank: OPENAI_BASE_URL, else OpenAI's.",
    )
    model = forms.CharField(max_length=200, help_text="The provider's model id.")
    passes = forms.IntegerField(
        min_value=1, max_value=5, initial=2, help_text="Independent calls per trace."
    )
    tolerance = forms.FloatField(
        min_value=0, initial=0.0, help_text="Largest score gap between passes still agreeing."
    )
    max_tokens = forms.IntegerField(min_value=64, max_value=32_000, initial=1024)
    use_batch_api = forms.BooleanField(
        required=False,
        label="Use the Message Batches API",
        help_text="Half the price; results arrive within hours, not seconds. Online judging "
        "always calls the API directly.",
    )

    def clean_provider(self):
        return self.cleaned_data["provider"] or "anthropic"
