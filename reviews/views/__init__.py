"""Pages of the review queue: queues.py (lists, bulk, saved views) and items.py (one item)."""
