"""The rubric edit form as a curator submits it, for the tests of what it accepts."""


def version_form(system_prompt: str, user_template: str, status: str = "draft") -> dict:
    """A binary, evaluation-summary version over the span tree with these templates."""
    return {
        "system_prompt": system_prompt,
        "user_template": user_template,
        "score_type": "binary",
        "score_min": 0,
        "score_max": 1,
        "output_format": "evaluation_summary",
        "trace_format": "span_tree",
        "status": status,
    }
