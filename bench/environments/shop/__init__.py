"""A customer-service shop: the labelled environment `bench/metric_quality.py` measures on."""
