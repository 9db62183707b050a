"""deploy/: the compose file of a cluster and the one nginx routing template it shares with the tests."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
import yaml

from app.config.settings import Settings
from app.tools.serve import STOP_MARGIN_SECONDS
from bench.cluster import TEMPLATE, nginx_binary, render_template

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"


def compose() -> dict:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


def test_the_compose_file_runs_three_processes_of_the_projects_image_on_one_database_and_redis() -> None:
    services = compose()["services"]
    apps = {name: service for name, service in services.items() if name.startswith("app")}
    assert sorted(apps) == ["app1", "app2", "app3"]
    for name, service in apps.items():
        assert (DEPLOY / service["build"]["context"] / service["build"]["dockerfile"]).resolve() == ROOT / "Dockerfile"
        environment = service["environment"]
        assert environment["CUCUMBER_PROCESS_NAME"] == name
        assert environment["DATABASE_URL"].startswith("postgresql+psycopg://") and "@postgres:5432/" in environment[
            "DATABASE_URL"]
        assert environment["CUCUMBER_REDIS_URL"] == "redis://redis:6379/0"
        assert environment["CUCUMBER_TRUSTED_PROXIES"] == services["proxy"]["networks"]["cluster"]["ipv4_address"]
        assert service["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert services["migrate"]["command"] == ["cucumber", "db", "upgrade"]
    assert "migrate" not in services["migrate"]["depends_on"]


def test_the_proxy_of_the_compose_file_uses_the_template_of_the_tests_with_every_process() -> None:
    proxy = compose()["services"]["proxy"]
    mounts = dict(volume.removesuffix(":ro").split(":") for volume in proxy["volumes"])
    assert (DEPLOY / mounts["./nginx/cucumber.conf.template"].lstrip("/")).name == "default.conf.template"
    assert (DEPLOY / "nginx/cucumber.conf.template").resolve() == TEMPLATE
    servers = (DEPLOY / "nginx/compose-servers.conf").read_text()
    assert re.findall(r"^server (\w+):8000\b", servers, re.MULTILINE) == ["app1", "app2", "app3"]
    assert mounts["./nginx/compose-servers.conf"] == "/etc/nginx/cucumber-servers.conf"
    variables = set(re.findall(r"\$\{(\w+)\}", TEMPLATE.read_text()))
    assert variables == {"CUCUMBER_PROXY_PORT", "CUCUMBER_SOCKET_ROUTE"}
    assert variables <= set(proxy["environment"])


def test_the_rendered_template_leaves_nginx_variables_and_refuses_an_unknown_one() -> None:
    rendered = render_template(TEMPLATE.read_text(), {"CUCUMBER_PROXY_PORT": "8080",
                                                      "CUCUMBER_SOCKET_ROUTE": "cucumber_rooms"})
    assert "${" not in rendered and "listen 8080;" in rendered
    assert "hash $room_code consistent;" in rendered
    with pytest.raises(KeyError):
        render_template("listen ${CUCUMBER_OTHER};", {})


@pytest.mark.skipif(nginx_binary() is None, reason="nginx is not installed")
@pytest.mark.parametrize("route", ["cucumber_rooms", "cucumber_random"])
def test_nginx_accepts_the_rendered_template(tmp_path: Path, route: str) -> None:
    (tmp_path / "cucumber.conf").write_text(render_template(
        TEMPLATE.read_text(), {"CUCUMBER_PROXY_PORT": "127.0.0.1:8080", "CUCUMBER_SOCKET_ROUTE": route}))
    (tmp_path / "cucumber-servers.conf").write_text("server 127.0.0.1:8001;\nserver 127.0.0.1:8002;\n")
    (tmp_path / "nginx.conf").write_text(
        f"pid {tmp_path}/nginx.pid;\nevents {{}}\nhttp {{\n"
        + "".join(f"    {kind}_temp_path {tmp_path}/{kind};\n" for kind in ("client_body", "proxy", "fastcgi",
                                                                             "uwsgi", "scgi"))
        + "    include cucumber.conf;\n}\n")
    checked = subprocess.run([str(nginx_binary()), "-t", "-p", f"{tmp_path}/", "-c", str(tmp_path / "nginx.conf"),
                              "-e", str(tmp_path / "error.log")], capture_output=True, text=True, check=False)
    assert checked.returncode == 0, checked.stderr


def test_the_compose_file_waits_for_a_stopping_process_longer_than_it_may_take() -> None:
    # Past its stop_grace_period a container is killed, before its rooms are handed over or its last writes
    # committed; a process gives itself CUCUMBER_STOP_SECONDS, and then a few seconds, before it exits anyway.
    for name in ("app1", "app2", "app3"):
        service = compose()["services"][name]
        stop_seconds = float(service["environment"].get("CUCUMBER_STOP_SECONDS", Settings().stop_seconds))
        grace = re.fullmatch(r"(\d+)s", service["stop_grace_period"])
        assert service["stop_signal"] == "SIGTERM" and grace is not None
        assert int(grace.group(1)) > stop_seconds + STOP_MARGIN_SECONDS
