"""Benchmarks: each prints its figures as one JSON line; nothing here asserts on time."""
