"""The server's metrics: each app counts on a registry of its own; who may read them."""

from __future__ import annotations

import pytest
from prometheus_client.parser import text_string_to_metric_families

from app.web.metrics import Metrics, address_allowed


def samples(metrics: Metrics) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of an exposition: ``(name, sorted labels) → value``."""
    body, content_type = metrics.exposition()
    assert content_type.startswith("text/plain; version=")
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(body.decode()) for sample in family.samples}


def test_each_metrics_object_counts_apart_on_its_own_registry():
    first, second = Metrics(), Metrics()  # the same names twice in one process: no clash
    first.storage_call("record_play", 0.003, failed=False)
    first.storage_call("record_play", 0.2, failed=True)
    first.storage_call("save_room", 0.001, failed=False)
    got = samples(first)
    assert got[("cucumber_plays_stored_total", ())] == 1  # the failed write stored nothing
    assert got[("cucumber_storage_seconds_count", (("call", "record_play"),))] == 2
    assert got[("cucumber_storage_seconds_bucket", (("call", "record_play"), ("le", "0.005")))] == 1
    assert got[("cucumber_storage_failures_total", (("call", "record_play"),))] == 1
    assert got[("cucumber_storage_seconds_count", (("call", "save_room"),))] == 1
    assert samples(second)[("cucumber_plays_stored_total", ())] == 0


def test_sockets_refusals_limits_slow_clients_and_rooms_are_counted():
    metrics = Metrics()
    rooms = [1, 2, 3]
    metrics.count_rooms(lambda: len(rooms))
    for kind in ("json", "page", "page"):
        metrics.socket_opened(kind)
    metrics.socket_closed("page", too_slow=True)
    metrics.message_refused("not_your_turn")
    metrics.limit_hit("socket_syncs")
    metrics.limit_hit("joins")
    rooms.pop()
    got = samples(metrics)
    assert got[("cucumber_rooms", ())] == 2  # read when the metrics are read
    assert got[("cucumber_sockets_open", (("kind", "json"),))] == 1
    assert got[("cucumber_sockets_open", (("kind", "page"),))] == 1
    assert got[("cucumber_slow_clients_dropped_total", (("kind", "page"),))] == 1
    assert got[("cucumber_refused_messages_total", (("code", "not_your_turn"),))] == 1
    assert got[("cucumber_rate_limited_total", (("limit", "socket_syncs"),))] == 1
    assert got[("cucumber_rate_limited_total", (("limit", "joins"),))] == 1


@pytest.mark.parametrize(("address", "allowed", "expected"), [
    ("127.0.0.1", "127.0.0.1,::1", True),
    ("::1", "127.0.0.1,::1", True),
    ("::ffff:127.0.0.1", "127.0.0.1,::1", True),
    ("203.0.113.5", "127.0.0.1,::1", False),
    ("10.1.2.3", "10.0.0.0/8", True),
    ("11.1.2.3", "10.0.0.0/8", False),
    ("203.0.113.5", "*", True),
    ("127.0.0.1", "", False),
    ("testclient", "127.0.0.1", False),
    (None, "127.0.0.1", False),
])
def test_only_the_allowed_addresses_may_read_the_metrics(address, allowed, expected):
    assert address_allowed(address, allowed) is expected
