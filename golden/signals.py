"""Hand-offs from golden to the stages on its right. Sent inside the writing transaction."""

from django.dispatch import Signal

# Sent with version=<DatasetVersion> once a dataset version has been snapshotted.
dataset_version_created = Signal()

# Sent with report=<gate report dict> when a gate decision is asked for by CI (API, command);
# the compare page only shows one and sends nothing.
gate_decided = Signal()
