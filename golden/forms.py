"""The example form: JSON fields parsed here, every rule checked by example_data_clean."""

import json

from django import forms

from golden.example_schema import ExampleInvalid, example_data_clean
from golden.models import AdversarialKind, GoldenExample
from golden.services import DEFAULT_HELD_OUT_SHARE, MAX_HELD_OUT_SHARE
from judges.models import Rubric

NO_TASK_TYPE = "-"
JSON_FIELDS = ("context", "reference_trajectory", "red_flags", "tool_world")
EMPTY_JSON = {"context": {}, "reference_trajectory": [], "red_flags": [], "tool_world": {}}
JSON_HELP = {
    "reference_trajectory": 'A list of steps: {"step": 1, "tool": "...", "inputs": {...}, '
    '"acceptable_output_fields": [...]}, optionally "optional": true (a run may skip the '
    'step). Inputs may use <from_context> or <from_step_N_output>, {"optional": true} (may be '
    'left out) or {"any_of": ["San Francisco", "SF"]} (either value); 5 and 5.0 are equal.',
    "red_flags": 'A list of {"text": "...", "rule": null or a rule such as {"rule": '
    '"called_before", "tool": "cancel_order", "prerequisite": "get_recent_orders"}}.',
    "context": "A JSON object: what the agent knows besides the task (customer id, locale).",
    "tool_world": 'The tools an agent under test meets in an eval run: {"tools": [{"name", '
    '"description", "input_schema"}], "recordings": [{"tool", "arguments", "result"}], '
    '"unrecorded": {"kind": "error", "status": 404, "message": "..."}, "variants": [{"name", '
    '"expected_behavior", "faults": [{"tool", "kind": "error|empty|malformed|timeout|'
    'contradictory", "at_call": N or "arguments": {...}, ...}]}]}. Empty: no world. See '
    "docs/tool-worlds.md.",
}


def _pretty(value) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


class GoldenExampleForm(forms.Form):
    task = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}))
    task_type = forms.CharField(required=False, max_length=100)
    adversarial_kind = forms.ChoiceField(choices=AdversarialKind.choices, required=False)
    context = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 4, "class": "json"}), required=False
    )
    reference_trajectory = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 16, "class": "json", "spellcheck": "false"}),
        required=False,
    )
    expected_outcome = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False)
    outcome_rubric = forms.ChoiceField(required=False)
    expected_behavior = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False)
    failure_tags = forms.CharField(required=False, help_text="Comma-separated failure modes.")
    red_flags = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 6, "class": "json", "spellcheck": "false"}),
        required=False,
    )
    tool_world = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 14, "class": "json", "spellcheck": "false"}),
        required=False,
    )
    held_out = forms.BooleanField(required=False)
    allow_duplicate = forms.BooleanField(
        required=False, label="Save anyway: this is not a duplicate"
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        names = Rubric.objects.order_by("name").values_list("name", flat=True)
        self.fields["outcome_rubric"].choices = [("", "—")] + [(n, n) for n in names]
        for name, text in JSON_HELP.items():
            self.fields[name].help_text = text

    @classmethod
    def initial_from(cls, example: GoldenExample) -> dict:
        return cls.initial_from_data(
            {
                "task": example.task,
                "task_type": example.task_type,
                "adversarial_kind": example.adversarial_kind,
                "context": example.context,
                "reference_trajectory": example.reference_trajectory,
                "expected_outcome": example.expected_outcome,
                "outcome_rubric": example.outcome_rubric.name if example.outcome_rubric else "",
                "expected_behavior": example.expected_behavior,
                "failure_tags": example.failure_tags,
                "red_flags": example.red_flags,
                "tool_world": example.tool_world,
                "held_out": example.held_out,
            }
        )

    @classmethod
    def initial_from_data(cls, data: dict) -> dict:
        """Form values for example data (the shape example_data_clean takes)."""
        return {
            **data,
            "outcome_rubric": data.get("outcome_rubric") or "",
            "failure_tags": ", ".join(data.get("failure_tags") or []),
            **{name: _pretty(data.get(name) or EMPTY_JSON[name]) for name in JSON_FIELDS},
        }

    def clean(self):
        cleaned = super().clean()
        data = {}
        for name in JSON_FIELDS:
            raw = (cleaned.get(name) or "").strip()
            if not raw:
                data[name] = {} if name in ("context", "tool_world") else []
                continue
            try:
                data[name] = json.loads(raw)
            except json.JSONDecodeError as exc:
                self.add_error(name, f"Not valid JSON: {exc.msg} (line {exc.lineno}).")
        if self.errors:
            return cleaned
        tags = [t.strip() for t in (cleaned.get("failure_tags") or "").split(",") if t.strip()]
        data.update(
            task=cleaned.get("task", ""),
            task_type=cleaned.get("task_type", ""),
            adversarial_kind=cleaned.get("adversarial_kind", ""),
            expected_outcome=cleaned.get("expected_outcome", ""),
            outcome_rubric=cleaned.get("outcome_rubric") or None,
            expected_behavior=cleaned.get("expected_behavior", ""),
            failure_tags=tags,
            held_out=bool(cleaned.get("held_out")),
        )
        try:
            self.example_data = example_data_clean(data)
        except ExampleInvalid as exc:
            self.add_example_errors(exc)
        return cleaned

    def add_example_errors(self, exc: ExampleInvalid) -> None:
        """Show each rule's error on its form field, with the path inside the JSON."""
        for path, message in exc.errors.items():
            field = path.split("[", 1)[0].split(".", 1)[0]
            inner = path[len(field) :].lstrip(".")
            text = f"{inner}: {message}" if inner else message
            self.add_error(field if field in self.fields else None, text)


class HeldOutDrawForm(forms.Form):
    share_percent = forms.IntegerField(
        min_value=0,
        max_value=int(MAX_HELD_OUT_SHARE * 100),
        initial=int(DEFAULT_HELD_OUT_SHARE * 100),
        label="Held-out share (%)",
    )
    task_type = forms.ChoiceField(required=False, label="Task type")

    def __init__(self, *args, task_types=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["task_type"].choices = [("*", "Every task type")] + [
            (t or NO_TASK_TYPE, t or "(none)") for t in task_types
        ]
        self.fields["task_type"].initial = "*"

    def clean_task_type(self) -> str | None:
        """None draws every type; examples without a type are chosen by a placeholder."""
        value = self.cleaned_data.get("task_type")
        if value in ("", "*", None):
            return None
        return "" if value == NO_TASK_TYPE else value


class DatasetVersionForm(forms.Form):
    name = forms.CharField(max_length=200)
    note = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False)


class DatasetImportForm(forms.Form):
    open_file = forms.FileField(label="Open part (JSONL)")
    held_out_file = forms.FileField(label="Held-out part (JSONL)", required=False)
    version_name = forms.CharField(
        max_length=200, required=False, help_text="Snapshot the imported examples as a version."
    )
    note = forms.CharField(required=False)
