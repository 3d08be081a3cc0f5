from django import forms

from webhooks.events import EVENT_CHOICES


class WebhookForm(forms.Form):
    url = forms.URLField(
        label="URL",
        max_length=2000,
        assume_scheme="https",
        widget=forms.URLInput(attrs={"size": 80, "placeholder": "https://ops.example.com/hooks"}),
        help_text="Receives a signed JSON POST.",
    )
    events = forms.MultipleChoiceField(choices=EVENT_CHOICES, widget=forms.CheckboxSelectMultiple)
    backlog_threshold = forms.IntegerField(
        min_value=0,
        initial=100,
        help_text="For the backlog event: open review items above which it fires (once per "
        "crossing).",
    )
