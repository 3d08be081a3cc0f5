from django.core.management import call_command

from demo.golden import DEMO_EXAMPLES, golden_demo_ensure
from golden.models import GoldenExample


def test_the_demo_dataset_is_valid_and_made_once(db, capsys):
    # when the demo is loaded twice
    call_command("golden_demo_load")
    version = golden_demo_ensure()
    # then every example passed validation once, one of them held out
    assert GoldenExample.objects.count() == len(DEMO_EXAMPLES)
    assert version.example_count == len(DEMO_EXAMPLES) and version.held_out_count == 1
    kinds = set(GoldenExample.objects.values_list("adversarial_kind", flat=True))
    assert kinds >= {
        "ambiguous_parameters",
        "empty_tool_result",
        "contradictory_outputs",
        "tool_error",
        "tool_timeout",
    }
    assert "Golden demo version demo-v1: 8 examples" in capsys.readouterr().out
