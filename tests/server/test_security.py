"""What the service does against other web pages: it answers only requests for its own Host
names (DNS rebinding), and every response carries headers that stop sniffing, framing and
foreign or inline scripts."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from conftest import make_engine, running

from veritype.engine import Engine
from veritype.server import ServerSettings, create_app
from veritype.server.settings import host_name

pytestmark = pytest.mark.needs_serve

FOREIGN = "attacker.example"
# Every kind of route: API, health, OpenAPI, viewer pages, static files, /docs, /v1.
PATHS = ["/healthz", "/documents", "/openapi.json", "/", "/traces/abc/view",
         "/static/viewer.js", "/static/swagger-ui/swagger-ui.css", "/docs", "/v1/models",
         "/no/such/path"]


def port_of(url: str) -> int:
    port = urlsplit(url).port
    assert port is not None
    return port


def raw_request(url: str, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send ``request`` as is; the status, headers and body of the answer."""
    with socket.create_connection(("127.0.0.1", port_of(url)), timeout=30) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, body


@pytest.mark.parametrize("path", PATHS)
def test_a_foreign_host_is_refused_on_every_route(base_url: str, path: str) -> None:
    response = httpx.get(base_url + path, headers={"Host": f"{FOREIGN}:{port_of(base_url)}"})
    assert response.status_code == 400
    body = response.json()
    error = body["error"] if path.startswith("/v1/") else body  # OpenAI's error shape
    assert FOREIGN in error["message"]
    assert [problem["field"] for problem in error["fields"]] == ["host"]
    assert (error["code"] if path.startswith("/v1/") else error["error"]) == "host_not_allowed"


@pytest.mark.parametrize(
    "host",
    ["localhost", "LOCALHOST:{port}", "localhost.:{port}", "127.0.0.1", "127.0.0.1:{port}",
     "127.8.0.1:1", "[::1]:{port}", "[::1]", "::1"],
)
def test_loopback_names_are_served_with_any_port(base_url: str, host: str) -> None:
    header = host.format(port=port_of(base_url))
    assert httpx.get(base_url + "/healthz", headers={"Host": header}).status_code == 200


@pytest.mark.parametrize(
    "host",
    ["127.0.0.1.attacker.example", "localhost.attacker.example", "[::1].attacker.example",
     "localhost:80@attacker.example", "0.0.0.0", "", "192.168.1.4:{port}"],
)
def test_names_that_only_look_local_are_refused(base_url: str, host: str) -> None:
    header = host.format(port=port_of(base_url))
    response = httpx.get(base_url + "/healthz", headers={"Host": header})
    assert response.status_code == 400, header
    assert response.json()["error"] == "host_not_allowed"


def test_a_request_without_a_host_header_is_refused(base_url: str) -> None:
    status, headers, body = raw_request(base_url, b"GET /healthz HTTP/1.0\r\n\r\n")
    assert status == 400
    assert headers["content-type"] == "application/json"
    assert b"no Host header" in body


@pytest.fixture(scope="module")
def named_url(engine: Engine, eval_dir: Path) -> Iterator[str]:
    """A service whose settings bind a specific address and allow one more name."""
    settings = ServerSettings(host="192.0.2.7", allowed_hosts=("API.Example.test.",),
                              eval_dir=eval_dir)
    with running(create_app(engine, settings)) as url:
        yield url


@pytest.mark.parametrize(
    ("host", "status"),
    [("api.example.test", 200), ("api.example.test:8443", 200), ("192.0.2.7:8000", 200),
     ("localhost", 200), ("other.example.test", 400), ("example.test", 400)],
)
def test_allowed_names_and_the_bind_address_are_served(
    named_url: str, host: str, status: int
) -> None:
    assert httpx.get(named_url + "/healthz", headers={"Host": host}).status_code == status


def test_an_unspecified_bind_address_allows_no_name_of_its_own(
    engine: Engine, eval_dir: Path
) -> None:
    settings = ServerSettings(host="0.0.0.0", api_keys=("key",), eval_dir=eval_dir)
    with running(create_app(engine, settings)) as url:
        assert httpx.get(url + "/healthz", headers={"Host": "0.0.0.0"}).status_code == 400
        assert httpx.get(url + "/healthz").status_code == 200


def test_a_star_turns_the_host_check_off(engine: Engine, eval_dir: Path) -> None:
    settings = ServerSettings(allowed_hosts=("*",), eval_dir=eval_dir)
    with running(create_app(engine, settings)) as url:
        response = httpx.get(url + "/documents", headers={"Host": FOREIGN})
        assert response.status_code == 200


@pytest.mark.parametrize(
    ("header", "name"),
    [("LocalHost:8000", "localhost"), ("[::1]:80", "::1"), ("::1", "::1"),
     ("example.test.", "example.test"), ("[::1].evil", "[::1].evil"), ("a:b", "a:b")],
)
def test_host_names_are_read_without_port_brackets_or_final_dot(header: str, name: str) -> None:
    assert host_name(header) == name


@pytest.mark.parametrize("bad", ["", "two words", "evil.test/path", "user@evil.test"])
def test_an_allowed_host_must_be_a_name(bad: str) -> None:
    with pytest.raises(ValueError, match="host name"):
        ServerSettings(allowed_hosts=(bad,))


SECURITY_HEADERS = ("x-content-type-options", "x-frame-options", "content-security-policy",
                    "referrer-policy", "permissions-policy")


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [("GET", "/healthz", 200), ("GET", "/", 200), ("GET", "/docs", 200),
     ("GET", "/static/viewer.js", 200), ("GET", "/openapi.json", 200),
     ("GET", "/documents/missing", 404), ("GET", "/qa", 405), ("POST", "/qa", 422),
     ("GET", "/v1/models", 200), ("GET", "/static/missing.js", 404)],
)
def test_every_response_carries_the_security_headers(
    base_url: str, method: str, path: str, status: int
) -> None:
    response = httpx.request(method, base_url + path, json={} if method == "POST" else None)
    assert response.status_code == status
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["x-frame-options"] == "DENY"
    assert response.headers["referrer-policy"] == "no-referrer"
    features = dict(item.strip().split("=") for item in
                    response.headers["permissions-policy"].split(","))
    assert features["camera"] == features["microphone"] == features["geolocation"] == "()"
    policy = {}
    for directive in response.headers["content-security-policy"].split(";"):
        name, _, value = directive.strip().partition(" ")
        policy[name] = value
    assert policy["default-src"] == "'self'"
    assert policy["script-src"] == "'self'"  # no inline or foreign scripts
    assert policy["frame-ancestors"] == "'none'"
    assert policy["object-src"] == "'none'"


def test_refusals_before_the_app_carry_the_security_headers(base_url: str) -> None:
    for host, length in ((FOREIGN, 2), ("127.0.0.1", 2_000_000)):
        status, headers, _ = raw_request(base_url, (
            f"POST /qa HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {length}\r\nConnection: close\r\n\r\n{{}}").encode())
        assert status == (400 if host == FOREIGN else 413)
        assert all(name in headers for name in SECURITY_HEADERS), headers


def test_a_failure_is_a_json_500_with_the_security_headers(tmp_path: Path) -> None:
    engine = make_engine(tmp_path / "store.sqlite")
    engine.close()  # every store read now fails, as with a database that went away
    with running(create_app(engine, ServerSettings(eval_dir=tmp_path))) as url:
        response = httpx.get(url + "/documents")
    assert response.status_code == 500
    assert response.json()["error"] == "internal_error"
    assert all(name in response.headers for name in SECURITY_HEADERS), response.headers
    assert response.headers["x-request-id"]
