"""Forms of the task-adaptive rubric pages: the criteria editor, task-type rules and corrections."""

from django import forms


class CriterionForm(forms.Form):
    question = forms.CharField(max_length=500, required=False)
    evidence = forms.CharField(max_length=1000, required=False)
    weight = forms.FloatField(min_value=0.01, max_value=10, initial=1, required=False)


# ORDER renumbers, DELETE drops, the blank extra rows add.
CriteriaFormSet = forms.formset_factory(CriterionForm, extra=2, can_order=True, can_delete=True)


def criteria_from_formset(formset) -> list[dict]:
    """The criteria a valid formset describes: deleted rows dropped, by order, blanks skipped."""
    # ordered_forms skips deleted and untouched extra rows; rows without a number go last.
    return [
        {
            "question": form.cleaned_data["question"],
            "evidence": form.cleaned_data.get("evidence", ""),
            "weight": form.cleaned_data.get("weight") or 1,
        }
        for form in formset.ordered_forms
        if form.cleaned_data.get("question", "").strip()
    ]


class TaskTypeRuleForm(forms.Form):
    task_type = forms.CharField(max_length=100)
    task_pattern = forms.CharField(max_length=500, required=False, label="Task text pattern")
    tools = forms.CharField(
        max_length=1000, required=False, help_text="Comma-separated; every one must be called."
    )
    priority = forms.IntegerField(initial=0, required=False)


class TaskTypeCorrectionForm(forms.Form):
    trace = forms.IntegerField(min_value=1, label="Trace #")
    task_type = forms.CharField(max_length=100)


class GenerateForm(forms.Form):
    task_type = forms.CharField(max_length=100)
