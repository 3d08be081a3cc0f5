"""Labelled environments: worlds whose tasks say which final state counts as success.

Each environment computes its own reward from its own database, so evalsite's metrics can be
measured against what really happened (`bench/metric_quality.py`).
"""
