"""Task-adaptive rubrics: task types, generated per-type criteria, per-criterion statistics."""
