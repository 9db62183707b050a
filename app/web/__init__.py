"""The HTTP application's guards around every route: each response's headers and cache policy, the
per-address limits, and the metrics."""
