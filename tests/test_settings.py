"""Settings that cannot keep every room with one owner are refused at start, with a clear reason."""

from __future__ import annotations

import io

import pytest
from pydantic import ValidationError

from app.config.settings import Settings
from app.tools.serve import serve

POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def test_redis_with_sqlite_is_refused():
    with pytest.raises(ValidationError, match=r"CUCUMBER_REDIS_URL .* needs DATABASE_URL on PostgreSQL"):
        Settings(redis_url="redis://127.0.0.1:6379/0", database_url="sqlite:///cucumber.db")


def test_cluster_mode_is_redis_with_postgresql_and_nothing_else():
    assert Settings(redis_url="redis://127.0.0.1:6379/0", database_url=POSTGRES).cluster
    assert not Settings(database_url=POSTGRES).cluster
    assert not Settings(database_url="sqlite:///cucumber.db").cluster


def test_leases_must_be_renewed_well_within_their_time():
    with pytest.raises(ValidationError, match="at most a third of CUCUMBER_LEASE_SECONDS"):
        Settings(lease_seconds=3, lease_renew_seconds=1.5)
    assert Settings(lease_seconds=3, lease_renew_seconds=1).lease_renew_seconds == 1


def test_the_redis_prefix_and_process_name_are_plain_names():
    with pytest.raises(ValidationError):
        Settings(redis_prefix="has space")
    with pytest.raises(ValidationError):
        Settings(process_name="a/b")
    assert Settings(redis_prefix="test:run-1", process_name="cards1").redis_prefix == "test:run-1"


def test_a_stop_takes_some_time_but_not_for_ever(monkeypatch):
    assert Settings().stop_seconds == 20
    for refused in (0, -1):
        with pytest.raises(ValidationError):
            Settings(stop_seconds=refused)
    monkeypatch.setenv("CUCUMBER_STOP_SECONDS", "3.5")
    assert Settings().stop_seconds == 3.5


def test_the_commit_window_is_from_0_to_1_second(monkeypatch):
    for refused in ("-0.001", "1.5", "nan"):
        monkeypatch.setenv("CUCUMBER_COMMIT_WINDOW_SECONDS", refused)
        with pytest.raises(ValidationError, match="commit_window_seconds"):
            Settings()
    monkeypatch.setenv("CUCUMBER_COMMIT_WINDOW_SECONDS", "0")
    assert Settings().commit_window_seconds == 0


def test_cucumber_serve_refuses_redis_with_sqlite_before_it_starts(monkeypatch):
    monkeypatch.setenv("CUCUMBER_REDIS_URL", "redis://127.0.0.1:6379/0")
    monkeypatch.setenv("DATABASE_URL", "sqlite:///never-created.db")
    err = io.StringIO()
    assert serve(host=None, port=None, err=err) == 2
    assert "the settings cannot be used: CUCUMBER_REDIS_URL (cluster mode) needs DATABASE_URL on PostgreSQL" in (
        err.getvalue())


def test_push_is_on_with_an_https_public_url_or_a_vapid_subject():
    assert not Settings().push_on and Settings().push_subject is None
    assert not Settings(public_url="http://cards.agurk.net").push_on
    on = Settings(public_url="https://cards.agurk.net:8443/play")
    assert on.push_on and on.push_subject == "https://cards.agurk.net"
    mail = Settings(vapid_subject="mailto:ops@agurk.net", public_url="https://cards.example.org")
    assert mail.push_on and mail.push_subject == "mailto:ops@agurk.net"
    assert not Settings(vapid_subject="").push_on


@pytest.mark.parametrize("subject", [
    "mailto:ops@localhost", "https://localhost", "https://cards.localhost", "mailto:ops@127.0.0.1",
    "https://[::1]", "https://10.0.0.7", "mailto:ops@example.com", "https://cards.example.org",
    "mailto:ops@cards.test", "https://push.invalid", "ops@agurk.net", "mailto:agurk.net", "http://agurk.net",
])
def test_a_subject_apple_refuses_refuses_the_start(subject):
    with pytest.raises(ValidationError, match="CUCUMBER_VAPID_SUBJECT: "):
        Settings(vapid_subject=subject)


def test_an_https_public_url_on_a_test_name_refuses_the_start_unless_a_subject_is_set():
    with pytest.raises(ValidationError, match=r"CUCUMBER_PUBLIC_URL \(the VAPID subject\): cards.example.org is a "
                                              "name for tests"):
        Settings(public_url="https://cards.example.org")


@pytest.mark.parametrize("entries", ["ftp://push.net/", "https://user@push.net/", "https://push.net/?a=1",
                                     "https://a*.push.net/", "https://push.net:99999/", "https://"])
def test_an_allowlist_entry_that_cannot_be_read_refuses_the_start(entries):
    for name in ("push_endpoints", "webhook_hosts"):
        with pytest.raises(ValidationError, match=name):
            Settings(**{name: entries})


def test_the_allowlists_take_hosts_wildcards_and_prefixes():
    assert Settings(push_endpoints=" https://*.notify.windows.com/ , http://127.0.0.1:9000/push/").push_endpoints == (
        "https://*.notify.windows.com/,http://127.0.0.1:9000/push/")
    assert Settings(webhook_hosts="discord.com, hooks.slack.com").webhook_hosts == "discord.com,hooks.slack.com"
