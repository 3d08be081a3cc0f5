"""Hand-offs from review to golden. Sent inside the writing transaction."""

from django.dispatch import Signal

# Sent with item=<ReviewItem>, annotation=<Annotation>, user=<User> when a resolution asks
# for promotion to the golden dataset.
review_item_promoted = Signal()
