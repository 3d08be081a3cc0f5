"""Pages of the golden dataset: examples.py (examples, promotion, held-out), versions.py
(snapshots, diff, export, import) and health.py (dataset health)."""
