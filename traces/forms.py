"""Forms of the traces pages."""

from django import forms

from traces.models import Project


class ProjectForm(forms.ModelForm):
    """A project's name, slug and how its tool failures are read."""

    tool_error_markers = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="One opening per line that marks a tool result as failed, e.g. DECLINED.",
    )

    class Meta:
        model = Project
        fields = [
            "name",
            "slug",
            "tool_error_text_detection",
            "tool_error_markers",
            "route_thumbs_down_to_review",
            "retention_days",
        ]
        help_texts = {"slug": "What exporters send in x-evalsite-project. Renaming it breaks them."}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        markers = self.instance.tool_error_markers if self.instance.pk else []
        self.initial.setdefault("tool_error_markers", "\n".join(markers or []))

    def clean_tool_error_markers(self) -> list[str]:
        lines = self.cleaned_data.get("tool_error_markers") or ""
        return [line.strip() for line in lines.splitlines() if line.strip()]
