"""Static files under URLs that name their content: a URL changes when its file does, an old one still works."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from starlette.applications import Starlette
from starlette.routing import Mount

from app.pages.assets import ASSETS, HASH_LENGTH, STATIC, Assets, content_hash, hashed_name
from tests.api.conftest import open_room


def served(folder: Path) -> tuple[Assets, TestClient]:
    assets = Assets(folder)
    return assets, TestClient(Starlette(routes=[Mount("/static", assets, name="static")]))


def test_a_files_url_changes_when_its_content_does_and_only_then(tmp_path: Path) -> None:
    (tmp_path / "app.js").write_text("console.log(1);\n")
    (tmp_path / "app.css").write_text("body { margin: 0; }\n")
    before = Assets(tmp_path)
    assert before.hashed("app.js") == "app." + content_hash(b"console.log(1);\n") + ".js"
    assert re.fullmatch(rf"app\.[0-9a-f]{{{HASH_LENGTH}}}\.css", before.hashed("app.css"))
    (tmp_path / "app.js").write_text("console.log(2);\n")
    after = Assets(tmp_path)
    assert after.hashed("app.js") != before.hashed("app.js")
    assert after.hashed("app.css") == before.hashed("app.css")
    (tmp_path / "app.js").write_text("console.log(1);\n")  # the same bytes again: the same URL again
    assert Assets(tmp_path).hashed("app.js") == before.hashed("app.js")


def test_names_in_folders_and_without_a_suffix_get_their_hash_too(tmp_path: Path) -> None:
    (tmp_path / "icons").mkdir()
    (tmp_path / "icons" / "seat.svg").write_text("<svg/>")
    (tmp_path / "LICENSE").write_text("text")
    assets = Assets(tmp_path)
    assert assets.hashed("icons/seat.svg") == f"icons/seat.{content_hash(b'<svg/>')}.svg"
    assert hashed_name("LICENSE", "0123456789") == "LICENSE.0123456789"
    assert hashed_name("app.min.js", "0123456789") == "app.min.0123456789.js"
    with pytest.raises(KeyError):
        assets.hashed("missing.js")


def test_the_current_url_serves_the_file_an_old_one_redirects_to_it_and_the_plain_name_still_works(
        tmp_path: Path) -> None:
    (tmp_path / "app.js").write_text("console.log(1);\n")
    old = Assets(tmp_path).hashed("app.js")
    (tmp_path / "app.js").write_text("console.log(2);\n")  # a deploy
    assets, client = served(tmp_path)
    current = assets.hashed("app.js")
    answer = client.get(f"/static/{current}")
    assert answer.status_code == 200 and answer.text == "console.log(2);\n"
    assert answer.headers["content-type"].startswith("text/javascript")
    # A tab opened before the deploy asks for the old URL: it gets the file the server now runs with.
    moved = client.get(f"/static/{old}", follow_redirects=False)
    assert moved.status_code == 307 and moved.headers["location"] == f"/static/{current}"
    assert client.get(f"/static/{old}").text == "console.log(2);\n"
    assert client.head(f"/static/{old}", follow_redirects=False).status_code == 307
    assert client.get("/static/app.js").text == "console.log(2);\n"
    for path in ["/static/other.0123456789.js", "/static/app.012345678.js", "/static/nothing.js",
                 "/static/../assets.py"]:
        assert client.get(path, follow_redirects=False).status_code == 404, path
    assert client.post(f"/static/{current}").status_code == 405


def test_the_packages_files_are_all_known_by_their_hash() -> None:
    files = {path.relative_to(STATIC).as_posix() for path in STATIC.rglob("*") if path.is_file()}
    assert set(ASSETS.hashes) == files
    for name in files:
        assert ASSETS.is_current(ASSETS.hashed(name))
        assert not ASSETS.is_current(name)


def test_every_page_names_static_files_by_their_current_hash(site: TestClient) -> None:
    client = site
    code, _ = open_room(client, ["Ana", "Ben"])
    linked = set()
    for path in ["/", "/rules", "/matches", f"/r/{code}", f"/r/{code}/take", "/r/ZZZZZ", "/matches/nosuchmatch2"]:
        page = client.get(path).text
        urls = re.findall(r"""(?:src|href)=["'](/static/[^"']+)""", page)
        assert urls, path
        for url in urls:
            assert ASSETS.is_current(url.removeprefix("/static/")), (path, url)
        linked.update(urls)
    for url in linked:
        answer = client.get(url)
        assert answer.status_code == 200 and answer.content == (STATIC / ASSETS.split(url[8:])[0]).read_bytes()
