"""Lighthouse (the npm package ``lighthouse``, pinned in ``package.json``) on the site's pages, in Debian's
Chromium: home, rules, past matches, and a seated player's room page in play.

Lighthouse drives the browser itself, out of Playwright's reach (whose routing answers the CDN in the other
browser tests, and would not reach a service worker either). So the pages' CDN host is answered here by
:class:`CdnStandIn`, a local HTTPS server with a throwaway certificate that serves the npm copy of htmx
byte for byte (the pages' SRI hashes still hold). :class:`AuditBrowser` is a Chromium that resolves the
CDN's host name to that server (``--host-resolver-rules``) and trusts its certificate's key alone
(``--ignore-certificate-errors-spki-list``); Lighthouse connects to it (``--port``), so that a cookie set
there beforehand seats the page's visitor.

Run as a script (``scripts/lighthouse``), it starts a server of its own and prints each page's scores:
performance is timing, which the tests never assert, so this is where its figures are read.
"""

from __future__ import annotations

import base64
import contextlib
import datetime
import hashlib
import json
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from app.client import Connection
from tests.e2e.helpers import (
    CDN_HEADERS,
    CDN_URL,
    NODE_MODULES,
    PAGE_SCRIPTS,
    LiveServer,
    cdn_copy,
    cdn_packages,
    protocol_player,
)

LIGHTHOUSE_VERSION = "12.8.2"
"""The Lighthouse that ``package.json`` pins."""
LIGHTHOUSE = NODE_MODULES / "lighthouse" / "cli" / "index.js"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
CDN_HOST = CDN_URL.pattern.removeprefix("^https://").split("/", 1)[0].replace("\\.", ".")
"""The host the pages load htmx from (``cdn.jsdelivr.net``)."""
PAGES = {"home": "/", "rules": "/rules", "past matches": "/matches"}
"""The site's public pages that Lighthouse audits, by name; the room page in play is made apart."""
ROOM = "seated room in play"
LIGHTHOUSE_SECONDS = 180
"""How long one page's audit may take before it counts as stuck."""


def installed() -> str | None:
    """Why Lighthouse cannot run here (no ``node``, not the pinned version installed), or ``None``."""
    if shutil.which("node") is None:
        return "node is not installed"
    try:
        version = json.loads((NODE_MODULES / "lighthouse" / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        version = None
    if version != LIGHTHOUSE_VERSION or not LIGHTHOUSE.is_file():
        return (f"lighthouse {LIGHTHOUSE_VERSION} is not installed ({version or 'none'} is): "
                f"run `npm install` in {NODE_MODULES.parent}")
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# ---------------------------------------------------------------- the CDN's stand-in

def throwaway_certificate(folder: Path, host: str) -> tuple[Path, Path, str]:
    """A self-signed certificate for ``host``, valid for a day, and its key, written into ``folder``.

    Returns the certificate's and the key's paths and the base64 SHA-256 of the certificate's public
    key (its SubjectPublicKeyInfo), the form ``--ignore-certificate-errors-spki-list`` takes.
    """
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host)])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                   .serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(hours=1))
                   .not_valid_after(now + datetime.timedelta(days=1))
                   .add_extension(x509.SubjectAlternativeName([x509.DNSName(host)]), critical=False)
                   .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "cdn.crt", folder / "cdn.key"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    public = key.public_key().public_bytes(serialization.Encoding.DER,
                                           serialization.PublicFormat.SubjectPublicKeyInfo)
    return cert_path, key_path, base64.b64encode(hashlib.sha256(public).digest()).decode()


class CdnStandIn:
    """An HTTPS server on a free loopback port answering the CDN URLs of the pages' scripts from the npm
    copy (:func:`tests.e2e.helpers.cdn_copy`), 404 for anything else; a context manager.

    ``port`` is its port, ``spki`` its certificate's key hash, ``served`` the paths it answered.
    """

    def __init__(self, folder: Path) -> None:
        cert, key, self.spki = throwaway_certificate(folder, CDN_HOST)
        packages = cdn_packages()
        served: list[str] = []
        self.served = served

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                file = cdn_copy(f"https://{CDN_HOST}{self.path.split('?', 1)[0]}", packages)
                if file is None:
                    self.send_error(404)
                    return
                body = file.read_bytes()
                served.append(self.path)
                self.send_response(200)
                for name, value in {**CDN_HEADERS, "Cache-Control": "public, max-age=31536000, immutable",
                                    "Content-Length": str(len(body))}.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(cert, key)
        self._server.socket = tls.wrap_socket(self._server.socket, server_side=True)
        self.port = int(self._server.server_address[1])
        self._thread = threading.Thread(target=self._server.serve_forever, name="cdn-stand-in", daemon=True)

    def __enter__(self) -> CdnStandIn:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(10)


# ---------------------------------------------------------------- the browser Lighthouse drives

class AuditBrowser:
    """Debian's Chromium, headless, with a profile of its own in ``folder``, its DevTools on a free port
    (``port``), the CDN's host sent to ``cdn``; a context manager that stops it at the end."""

    def __init__(self, folder: Path, cdn: CdnStandIn, chromium: Path) -> None:
        self.port = _free_port()
        self._command = [
            str(chromium), "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-default-apps", "--mute-audio",
            f"--remote-debugging-port={self.port}", f"--user-data-dir={folder / 'profile'}",
            f"--host-resolver-rules=MAP {CDN_HOST} 127.0.0.1:{cdn.port}",
            f"--ignore-certificate-errors-spki-list={cdn.spki}",
            "about:blank",
        ]
        self._log = folder / "chromium.log"
        self._process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> AuditBrowser:
        with self._log.open("wb") as log:
            self._process = subprocess.Popen(self._command, stdout=log, stderr=subprocess.STDOUT,
                                             start_new_session=True)
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/json/version", timeout=2) as answer:
                    self._socket_url = json.load(answer)["webSocketDebuggerUrl"]
                    return self
            except OSError:
                if self._process.poll() is not None or time.monotonic() > deadline:
                    self.__exit__()
                    raise RuntimeError(f"Chromium did not start:\n{self._log.read_text(errors='replace')}") from None
                time.sleep(0.2)

    def __exit__(self, *exc: object) -> None:
        process = self._process
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)

    def _devtools(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """The result of one DevTools command to the browser; raises ``RuntimeError`` when it fails."""
        from websockets.sync.client import connect

        with connect(self._socket_url, open_timeout=10, max_size=None) as devtools:
            devtools.send(json.dumps({"id": 1, "method": method, "params": params}))
            while True:
                answer = json.loads(devtools.recv(timeout=10))
                if answer.get("id") == 1:
                    break
        if "error" in answer:
            raise RuntimeError(f"{method} failed: {answer['error']}")
        result: dict[str, Any] = answer["result"]
        return result

    def set_cookie(self, name: str, value: str, url: str) -> None:
        """Give the browser a cookie for ``url``, as the site would have set it."""
        self._devtools("Storage.setCookies", {"cookies": [{"name": name, "value": value, "url": url}]})

    def cookie_names(self) -> set[str]:
        """The names of every cookie the browser holds."""
        return {cookie["name"] for cookie in self._devtools("Storage.getCookies", {})["cookies"]}


def run_lighthouse(browser: AuditBrowser, url: str, report: Path) -> dict[str, Any]:
    """Lighthouse's report (its JSON, also written to ``report``) of ``url`` in ``browser``: a phone,
    with Lighthouse's default simulated throttling, the four categories of :data:`CATEGORIES`.

    Raises ``RuntimeError`` with Lighthouse's output when it fails or finds the page unreachable.
    """
    command = ["node", str(LIGHTHOUSE), url, f"--port={browser.port}", "--hostname=127.0.0.1",
               "--output=json", f"--output-path={report}", f"--only-categories={','.join(CATEGORIES)}", "--quiet"]
    done = subprocess.run(command, capture_output=True, timeout=LIGHTHOUSE_SECONDS, check=False)
    if done.returncode != 0 or not report.is_file():
        raise RuntimeError(f"lighthouse failed on {url} ({done.returncode}):\n"
                           f"{done.stdout.decode(errors='replace')}\n{done.stderr.decode(errors='replace')}")
    result: dict[str, Any] = json.loads(report.read_text())
    if result.get("runtimeError"):
        raise RuntimeError(f"lighthouse could not audit {url}: {result['runtimeError']}")
    return result


def scores(report: dict[str, Any]) -> dict[str, int]:
    """Each category's score, 0 to 100, as Lighthouse shows it."""
    return {name: round(report["categories"][name]["score"] * 100) for name in CATEGORIES}


def failed_audits(report: dict[str, Any], category: str) -> dict[str, str]:
    """The audits of ``category`` that count and did not pass, by id, each with its title and what it
    found (an audit not applicable to the page, or only informative, does not count)."""
    failed = {}
    for ref in report["categories"][category]["auditRefs"]:
        audit = report["audits"][ref["id"]]
        if ref.get("weight", 0) > 0 and audit["scoreDisplayMode"] in ("binary", "numeric") and audit["score"] < 1:
            failed[ref["id"]] = f"{audit['title']}: {audit.get('displayValue') or audit.get('explanation') or ''}"
    return failed


# ---------------------------------------------------------------- a room in play

@dataclass
class RoomInPlay:
    """A room whose match is being played, seen by its seat 1 (``cookie``: the player cookie's name and
    value), while seat 0 is held over the protocol by ``host``, who keeps the room open."""

    path: str
    cookie: tuple[str, str]
    host: Connection


def room_in_play(server: LiveServer) -> RoomInPlay:
    """Open a room of two on ``server``, start its match, and give seat 1's cookie (no turn clock: the
    match waits as it is while the page is audited)."""
    host = server.post("/api/rooms", {"name": "Ben", "preset": "agurk"})
    code = host["code"]
    player = protocol_player(server, code, host["token"])
    ana = server.post(f"/api/rooms/{code}/players", {"name": "Ana"})
    player.send({"type": "start"})
    server.wait_room(code, lambda now: now["state"]["phase"] == "playing")
    return RoomInPlay(f"/r/{code}", (f"cucumber_{code}", ana["token"]), player)


@contextlib.contextmanager
def audit_browser(folder: Path, chromium: Path) -> Iterator[tuple[CdnStandIn, AuditBrowser]]:
    """The CDN's stand-in and a browser sent to it, both stopped at the end."""
    with CdnStandIn(folder) as cdn, AuditBrowser(folder, cdn, chromium) as browser:
        yield cdn, browser


def audit_site(server: LiveServer, folder: Path, chromium: Path) -> dict[str, dict[str, Any]]:
    """Lighthouse's reports of the three public pages and of a seated room page in play, by page name
    (:data:`PAGES` and :data:`ROOM`); each report is kept in ``folder`` as ``<name>.json``."""
    reports = {}
    with audit_browser(folder, chromium) as (cdn, browser):
        room = room_in_play(server)
        try:
            browser.set_cookie(*room.cookie, server.url)
            for name, path in {**PAGES, ROOM: room.path}.items():
                reports[name] = run_lighthouse(browser, server.url + path, folder / f"{name.replace(' ', '-')}.json")
            # The room page was a seated player's, in play: the player's cookie outlived Lighthouse's storage
            # reset (which leaves cookies), and the match still waits for a card.
            if room.cookie[0] not in browser.cookie_names():
                raise RuntimeError("the player's cookie was gone: the room page was audited as a spectator's")
            if server.get(f"/api/rooms/{room.path.rsplit('/', 1)[1]}")["state"]["phase"] != "playing":
                raise RuntimeError("the room's match was over before its page was audited")
        finally:
            room.host.close()
        missing = [url for url in PAGE_SCRIPTS if url.removeprefix(f"https://{CDN_HOST}") not in cdn.served]
        if missing:
            raise RuntimeError(f"the CDN's stand-in never served {missing}: were the pages' scripts loaded?")
    return reports


def main() -> int:
    """Start a server, audit its pages, print a table of the scores (and what failed); 0, or 1 when
    Lighthouse cannot run."""
    from tests.e2e.conftest import CHROMIUM, start_server, stop_server

    reason = installed()
    if reason:
        print(reason, file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="lighthouse-") as temporary:
        folder = Path(temporary)
        process, server = start_server(folder, deal_pause=0.3)
        try:
            reports = audit_site(server, folder, CHROMIUM)
        finally:
            stop_server(process)
    version = next(iter(reports.values()))["lighthouseVersion"]
    print(f"Lighthouse {version}, {os.uname().machine}, mobile (simulated throttling), {CHROMIUM}")
    print(f"| page | {' | '.join(CATEGORIES)} |")
    print(f"|---|{'---|' * len(CATEGORIES)}")
    for name, report in reports.items():
        print(f"| {name} | {' | '.join(str(score) for score in scores(report).values())} |")
    for name, report in reports.items():
        for category in CATEGORIES:
            for audit, what in failed_audits(report, category).items():
                print(f"{name}: {category}: {audit}: {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
