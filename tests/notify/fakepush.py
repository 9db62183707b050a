"""The fake push service the tests use: ``bench/fakepush.py`` (it lives with the benchmarks, which are
installed with the app and time pushes with it too)."""

from bench.fakepush import Answer, Browser, Delivery, FakePushService

__all__ = ["Answer", "Browser", "Delivery", "FakePushService"]
