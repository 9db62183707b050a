"""A request goes to the address that was checked, with the URL's host for TLS and ``Host``, within its
timeouts, and follows no redirect."""

from __future__ import annotations

import asyncio
import datetime
import socket
import ssl
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from app.notify.outbound import SendFailed, post
from app.notify.urls import PUSH_ENDPOINT_REFUSED, Allowlist, Target, check_url


def certificate(folder: Path, name: str) -> tuple[Path, Path]:
    """A self-signed certificate for ``name`` and its key, as PEM files in ``folder``."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_file, key_file = folder / "cert.pem", folder / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_file, key_file


class Seen:
    """What the TLS server saw: the server names asked for (SNI) and each request's Host header."""

    def __init__(self) -> None:
        self.names: list[str | None] = []
        self.hosts: list[str | None] = []


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[int, Seen, ssl.SSLContext]]:
    """An https server on 127.0.0.1 with a certificate for ``localhost``: its port, what it saw, and a client
    context that trusts its certificate."""
    cert_file, key_file = certificate(tmp_path, "localhost")
    seen = Seen()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    context.sni_callback = lambda _socket, name, _context: seen.names.append(name)  # type: ignore[assignment]

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            seen.hosts.append(self.headers.get("host"))
            self.send_response(201)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet."""

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    client = ssl.create_default_context(cafile=str(cert_file))
    yield server.server_address[1], seen, client
    server.shutdown()
    server.server_close()


def resolved(url: str, entry: str, answers: list[list[str]]) -> tuple[Target, list[str]]:
    """``url`` checked against ``entry`` and resolved by a resolver giving ``answers`` in turn; the resolver's
    look-ups."""
    asked: list[str] = []

    async def resolve(host: str, port: int) -> list[str]:
        asked.append(host)
        return answers[min(len(asked), len(answers)) - 1]

    target = check_url(url, Allowlist.parse(entry), PUSH_ENDPOINT_REFUSED)
    asyncio.run(target.resolve(resolve))
    return target, asked


def test_https_goes_to_the_checked_address_with_the_urls_host_for_tls_and_host(tls_server):
    port, seen, client = tls_server
    # The name's second look-up would give an address where nothing listens: the request never asks again.
    target, asked = resolved(f"https://localhost:{port}/push/x", f"https://localhost:{port}/",
                             [["127.0.0.1"], ["127.0.0.9"]])
    answer = asyncio.run(post(target, headers={}, body=b"x", tls=client))
    assert answer.status == 201 and answer.accepted
    assert asked == ["localhost"]
    assert seen.names == ["localhost"] and seen.hosts == [f"localhost:{port}"]


def test_a_certificate_for_another_name_fails(tls_server):
    port, seen, client = tls_server
    target, _ = resolved(f"https://127.0.0.1:{port}/push/x", f"https://127.0.0.1:{port}/", [["127.0.0.1"]])
    with pytest.raises(SendFailed):
        asyncio.run(post(target, headers={}, body=b"x", tls=client))
    assert seen.hosts == []


def test_the_system_authorities_do_not_take_a_self_signed_certificate(tls_server):
    port, seen, _ = tls_server
    target, _ = resolved(f"https://localhost:{port}/push/x", f"https://localhost:{port}/", [["127.0.0.1"]])
    with pytest.raises(SendFailed):
        asyncio.run(post(target, headers={}, body=b"x"))
    assert seen.hosts == []


def test_a_server_that_never_answers_is_given_up():
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        port = silent.getsockname()[1]
        target, _ = resolved(f"http://127.0.0.1:{port}/push/x", f"http://127.0.0.1:{port}/", [["127.0.0.1"]])
        with pytest.raises(SendFailed, match="no answer in time"):
            asyncio.run(post(target, headers={}, body=b"x", answer_seconds=0.5))


def test_nobody_listening_is_a_failure_and_an_unresolved_target_is_never_sent():
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    target, _ = resolved(f"http://127.0.0.1:{port}/push/x", f"http://127.0.0.1:{port}/", [["127.0.0.1"]])
    with pytest.raises(SendFailed, match="connecting failed"):
        asyncio.run(post(target, headers={}, body=b"x"))
    unresolved = check_url(f"http://127.0.0.1:{port}/push/x", Allowlist.parse(f"http://127.0.0.1:{port}/"),
                           PUSH_ENDPOINT_REFUSED)
    with pytest.raises(SendFailed, match="not resolved"):
        asyncio.run(post(unresolved, headers={}, body=b"x"))
