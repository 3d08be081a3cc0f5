"""The curator's form for a project's guardrail thresholds."""

from django import forms

from core.errors import ApplicationError
from guardrails.services import prerequisites_parse


class GuardrailPolicyForm(forms.Form):
    loop_repeats = forms.IntegerField(
        min_value=2,
        max_value=100,
        label="Loop threshold",
        help_text="Identical or near-identical calls (same tool; arguments equal but for case, "
        "spacing and punctuation) that make a loop.",
    )
    max_steps = forms.IntegerField(
        min_value=1,
        max_value=10_000,
        label="Step limit",
        help_text="Tool calls allowed in one trajectory; a trace's own max_steps, if "
        "stricter, wins.",
    )
    tool_prerequisites = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 5, "class": "json"}),
        label="Tool prerequisites",
        help_text="One line per tool: `issue_refund: verify_identity, get_order`. Added to "
        "those the traces declare.",
    )

    def clean_tool_prerequisites(self):
        try:
            return prerequisites_parse(self.cleaned_data["tool_prerequisites"])
        except ApplicationError as exc:
            raise forms.ValidationError(exc.message) from exc
