"""Eval runs over a dataset version, their scores, comparisons, and the CI gate."""
