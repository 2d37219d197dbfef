"""Every kind of bad input a client can send, against the service over each store (SQLite
and PostgreSQL, which refuses NUL characters in text), and the answer it gets: a 4xx whose
JSON body names the field and its problem."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from server_support import DOCUMENTS, EVAL_RUN

from veritype.errors import InputError
from veritype.server._middleware import declared_length

pytestmark = pytest.mark.needs_serve


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.needs_pg)]
)
def client(request: pytest.FixtureRequest) -> Iterator[httpx.Client]:
    url = request.getfixturevalue("base_url" if request.param == "sqlite" else "pg_base_url")
    with httpx.Client(base_url=url, timeout=60) as http:
        yield http


def raw_request(client: httpx.Client, request: bytes, timeout: float = 30) -> bytes:
    """Send ``request`` as is and read the answer until the server closes."""
    address = urlsplit(str(client.base_url))
    with socket.create_connection((address.hostname, address.port), timeout=timeout) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


def test_an_unknown_filter_is_a_422_naming_it(client: httpx.Client) -> None:
    response = client.post("/qa", json={"query": "Everest height?", "filters": {"colour": "x"}})
    assert response.status_code == 422
    assert "colour" in response.json()["message"]


@pytest.mark.parametrize(
    ("documents", "problem"),
    [([{"text": "One.", "source": "same"}, {"text": "Two.", "source": "same"}],
      "also the source of documents.0"),
     # Stored with spaces for control characters, these two sources would be one.
     ([{"text": "One.", "source": "same\u0000"}, {"text": "Two.", "source": "same\u0001"}],
      "also the source of documents.0"),
     ([{"text": "One."}, {"text": "One.", "title": "Again"}],
      "same text as documents.0")],
)
def test_two_documents_with_one_source_are_refused(
    client: httpx.Client, documents: list[dict[str, str]], problem: str
) -> None:
    response = client.post("/documents", json={"documents": [*documents, {"text": "Three."}]})
    assert response.status_code == 422
    fields = response.json()["fields"]
    assert [field["field"] for field in fields] == ["documents.1.source"]
    assert problem in fields[0]["problem"]
    assert client.get("/documents").json()["total"] == len(DOCUMENTS)  # nothing was stored


TOO_LONG_QUERY = "q" * 2001


@pytest.mark.parametrize(
    ("path", "body", "status", "field", "words"),
    [
        ("/qa", "{\"query\": ", 400, "body", "not valid JSON"),
        ("/qa", b'{"query": "caf\xe9"}', 400, "body", "not valid UTF-8 at byte 14"),
        ("/qa", "[" * 100_000 + "]" * 100_000, 400, "body",
         "at character 99999: nested 100,000 levels deep"),
        ("/v1/chat/completions", b'{"model": "\xff"}', 400, "body", "not valid UTF-8 at byte 11"),
        ("/qa", {"query": 5}, 422, "query", "valid string"),
        ("/qa", {"query": ""}, 422, "query", "at least 1"),
        ("/qa", {"query": "   \n "}, 422, "query", "empty"),
        ("/qa", {"query": TOO_LONG_QUERY}, 422, "query", "2000"),
        ("/qa", {}, 422, "query", "required"),
        ("/qa", {"query": "x", "colour": "red"}, 422, "colour", "not permitted"),
        ("/qa", {"query": "x", "mode": "long"}, 422, "mode", "brief"),
        ("/qa", {"query": "x", "filters": ["title"]}, 422, "filters", "dictionary"),
        ("/qa", ["query"], 422, "body", "dictionary"),
        ("/qa/verify", {"answer": "a" * 20001}, 422, "answer", "20000"),
        ("/qa/verify", {"answer": "x", "evidence": ["e"] * 51}, 422, "evidence", "50"),
        ("/qa/verify", {"answer": "x", "evidence": ["fine", " "]}, 422, "evidence.1",
         "empty or only whitespace"),
        ("/qa/verify", {"answer": "x", "evidence": "one text"}, 422, "evidence", "valid list"),
        ("/qa/verify", {"answer": None}, 422, "answer", "valid string"),
        ("/documents", {"documents": []}, 422, "documents", "at least 1"),
        ("/documents", {"documents": [{"title": "no text"}]}, 422, "documents.0.text",
         "required"),
        ("/v1/chat/completions", {"model": "veritype", "messages": []}, 422, "messages",
         "at least 1"),
        ("/v1/chat/completions", {"model": "veritype",
                                  "messages": [{"role": "system", "content": "hi"}]},
         422, "messages", "no message with role 'user'"),
    ],
)
def test_bad_input_is_a_4xx_naming_the_field(
    client: httpx.Client, path: str, body: Any, status: int, field: str, words: str
) -> None:
    if isinstance(body, str | bytes):
        response = client.post(path, content=body, headers={"Content-Type": "application/json"})
    else:
        response = client.post(path, json=body)
    assert response.status_code == status, response.text
    error = response.json()
    if path.startswith("/v1/"):  # the OpenAI error shape
        error = error["error"]
        assert error["param"] == field
    assert error["message"]
    problems = {problem["field"]: problem["problem"] for problem in error["fields"]}
    assert field in problems, error
    assert words.lower() in problems[field].lower(), error


@pytest.mark.parametrize(
    ("params", "field"), [({"limit": 0}, "limit"), ({"limit": "ten"}, "limit"),
                          ({"offset": -1}, "offset"), ({"limit": 501}, "limit")],
)
def test_bad_paging_is_a_422_naming_the_parameter(
    client: httpx.Client, params: dict[str, Any], field: str
) -> None:
    response = client.get("/documents", params=params)
    assert response.status_code == 422
    assert [problem["field"] for problem in response.json()["fields"]] == [field]


def test_a_body_over_the_limit_is_a_413(client: httpx.Client) -> None:
    big = json.dumps({"answer": "x", "evidence": ["word " * 20_000] * 11})
    response = client.post("/qa/verify", content=big,
                           headers={"Content-Type": "application/json"})
    assert response.status_code == 413
    assert "1,000,000 bytes" in response.json()["message"]


def test_a_chunked_body_over_the_limit_is_a_413(client: httpx.Client) -> None:
    def parts() -> Any:
        yield b'{"answer": "x", "evidence": ["'
        for _ in range(110):
            yield b"y" * 10_000
        yield b'"]}'

    response = client.post("/qa/verify", content=parts(),
                           headers={"Content-Type": "application/json"})
    assert response.status_code == 413


def test_the_wrong_content_type_is_a_4xx(client: httpx.Client) -> None:
    response = client.post("/qa", content="When?", headers={"Content-Type": "text/plain"})
    assert 400 <= response.status_code < 500
    assert response.json()["fields"]


def test_unknown_routes_and_methods_answer_json(client: httpx.Client) -> None:
    missing = client.get("/no/such/path")
    assert missing.status_code == 404 and missing.json()["error"] == "not_found"
    wrong = client.get("/qa")
    assert wrong.status_code == 405 and wrong.json()["error"] == "method_not_allowed"


NUL_CASES = [
    ("/qa", {"query": "When\u0000 was it built?"}, "query", 4),
    ("/qa", {"query": "\u0000"}, "query", 0),
    ("/qa", {"query": "Who?", "filters": {"title": "Cu\u0000rie"}}, "filters.title", 2),
    ("/qa", {"query": "Who?", "filters": {"source": "\u0000"}}, "filters.source", 0),
    ("/qa/verify", {"answer": "It was completed in 1889.\u0000"}, "answer", 25),
    ("/qa/verify", {"answer": "It is tall.", "evidence": ["a.", "b.", "c\u0000."]},
     "evidence.2", 1),
    ("/v1/chat/completions",
     {"model": "veritype", "messages": [{"role": "user", "content": "Wh\u0000en?"}]},
     "messages.0.content", 2),
    ("/v1/chat/completions",
     {"model": "veritype", "messages": [{"role": "system", "content": "Be brief.\u0000"},
                                        {"role": "user", "content": "When?"}]},
     "messages.0.content", 9),
    ("/v1/chat/completions",
     {"model": "veritype", "messages": [{"role": "user", "content": [
         {"type": "text", "text": "When"}, {"type": "text", "text": " was it\u0000?"}]}]},
     "messages.0.content.1.text", 7),
]


@pytest.mark.parametrize(("path", "body", "field", "position"), NUL_CASES)
def test_a_nul_character_is_a_422_naming_the_field_and_its_position(
    client: httpx.Client, path: str, body: dict[str, Any], field: str, position: int
) -> None:
    response = client.post(path, json=body)
    assert response.status_code == 422, response.text
    error = response.json()
    if path.startswith("/v1/"):
        error = error["error"]
    assert [problem["field"] for problem in error["fields"]] == [field]
    assert error["fields"][0]["problem"] == f"contains a NUL character at position {position}"


# A lone UTF-16 surrogate, sent as the JSON escape "\ud800" (JSON allows it, Python keeps it,
# no tokenizer reads it), in every route's text, streamed or not.
SURROGATE_CASES = [
    ("/qa", {"query": "When was \ud800 it built?"}, "query"),
    ("/qa", {"query": "Who?", "filters": {"title": "Cu\udfffrie"}}, "filters.title"),
    ("/qa/verify", {"answer": "It is tall.", "evidence": ["It is \udc00 tall."]}, "evidence.0"),
    ("/documents", {"documents": [{"text": "A \ud800 text."}]}, "documents.0.text"),
    ("/v1/chat/completions",
     {"model": "veritype", "messages": [{"role": "user", "content": "a \ud800 b?"}]},
     "messages.0.content"),
    ("/v1/chat/completions",
     {"model": "veritype", "messages": [{"role": "user", "content": "a \udfff b?"}]},
     "messages.0.content"),
    ("/v1/chat/completions",
     {"model": "veritype", "stream": True,
      "messages": [{"role": "user", "content": "a \ud800 b?"}]},
     "messages.0.content"),
    ("/v1/chat/completions",
     {"model": "veritype", "messages": [{"role": "user", "content": [
         {"type": "text", "text": "When was"}, {"type": "text", "text": " it \ud800 built?"}]}]},
     "messages.0.content.1.text"),
    ("/v1/chat/completions",
     {"model": "veritype", "messages": [{"role": "system", "content": "Be \udbff brief."},
                                        {"role": "user", "content": "When?"}]},
     "messages.0.content"),
]


@pytest.mark.parametrize(("path", "body", "field"), SURROGATE_CASES)
def test_a_lone_surrogate_is_a_422_naming_the_field(
    client: httpx.Client, path: str, body: dict[str, Any], field: str
) -> None:
    # json.dumps writes the surrogate as its escape, as a client's JSON encoder would.
    response = client.post(path, content=json.dumps(body),
                           headers={"Content-Type": "application/json"})
    assert response.status_code == 422, response.text
    error = response.json()
    if path.startswith("/v1/"):
        error = error["error"]
    assert [problem["field"] for problem in error["fields"]] == [field]


def test_a_lone_surrogate_in_a_chat_message_names_its_position(client: httpx.Client) -> None:
    body = {"model": "veritype", "messages": [{"role": "user", "content": "a \udfff b?"}]}
    response = client.post("/v1/chat/completions", content=json.dumps(body),
                           headers={"Content-Type": "application/json"})
    assert response.json()["error"]["fields"][0]["problem"] == (
        "contains a lone surrogate (U+DFFF) at position 2, which is not Unicode text")


def test_a_filter_key_with_a_nul_is_an_unknown_filter(client: httpx.Client) -> None:
    response = client.post("/qa", json={"query": "Who?", "filters": {"ti\u0000tle": "Curie"}})
    assert response.status_code == 422
    assert [problem["field"] for problem in response.json()["fields"]] == ["filters.ti\u0000tle"]


@pytest.mark.parametrize(
    ("method", "path", "field"),
    [("GET", "/documents/ab%00cd", "doc_id"), ("DELETE", "/documents/%00", "doc_id"),
     ("GET", "/documents/a%0Ab", "doc_id"), ("GET", "/traces/%00", "trace_id"),
     ("GET", "/traces/t%7F", "trace_id"), ("GET", "/evals/run%00", "run"),
     ("GET", f"/evals/{EVAL_RUN}/files/plot%01.png", "name")],
)
def test_an_id_with_a_control_character_is_a_422_naming_it(
    client: httpx.Client, method: str, path: str, field: str
) -> None:
    response = client.request(method, path)
    assert response.status_code == 422, response.text
    assert response.json()["fields"] == [
        {"field": field, "problem": "must not contain control characters"}]


def test_control_characters_in_a_document_are_stored_as_spaces(client: httpx.Client) -> None:
    added = client.post("/documents", json={"documents": [{
        "text": "Lake Baikal\u0000is the deepest\u0007lake on Earth.",
        "title": "Bai\u0000kal", "source": "notes/\u0000baikal"}]})
    assert added.status_code == 201, added.text
    stored = added.json()["documents"][0]
    assert stored["title"] == "Bai kal" and stored["source"] == "notes/ baikal"
    detail = client.get(f"/documents/{stored['doc_id']}")
    assert detail.status_code == 200, detail.text
    body = detail.json()
    assert body["text"] == "Lake Baikal is the deepest lake on Earth."
    assert (body["title"], body["source"]) == ("Bai kal", "notes/ baikal")
    assert client.delete(f"/documents/{stored['doc_id']}").status_code == 204


@pytest.mark.parametrize("text", ["\u0000", " \u0001\n\u0000 ", "\u3000\u001f"])
def test_a_document_of_only_control_characters_and_spaces_is_refused(
    client: httpx.Client, text: str
) -> None:
    response = client.post("/documents", json={"documents": [{"text": "Fine.", "source": "a"},
                                                             {"text": text}]})
    assert response.status_code == 422
    assert [problem["field"] for problem in response.json()["fields"]] == ["documents.1.text"]


@pytest.mark.parametrize(
    ("filters", "field"),
    [({"added_after": "yesterday"}, "filters.added_after"),
     ({"added_before": "2026-02-30"}, "filters.added_before"),
     ({"added_after": "2026-01-31T10:00:00"}, "filters.added_after"),  # no time zone
     ({"title": 5}, "filters.title")],
)
def test_a_bad_filter_value_is_a_422_naming_it(
    client: httpx.Client, filters: dict[str, Any], field: str
) -> None:
    response = client.post("/qa", json={"query": "Who won the Nobel Prize?", "filters": filters})
    assert response.status_code == 422
    assert [problem["field"] for problem in response.json()["fields"]] == [field]


@pytest.mark.parametrize(
    ("moment", "found"),
    [("2000-01-31", True), ("2000-01-31T10:00:00Z", True), ("2000-01-31t10:00:00.5+01:00", True),
     ("2999-12-31", False), ("2999-12-31T23:59:59-05:00", False)],
)
def test_dates_and_date_times_filter(client: httpx.Client, moment: str, found: bool) -> None:
    response = client.post("/qa", json={"query": "When did she win the Nobel Prize?",
                                        "filters": {"added_after": moment, "title": "Curie"}})
    assert response.status_code == 200, response.text
    trace = client.get(f"/traces/{response.json()['trace_id']}").json()
    titles = {chunk["title"] for chunk in trace["evidence"]}
    assert titles == ({"Marie Curie"} if found else set())


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [("PUT", "/documents", "GET, POST"), ("PATCH", "/documents/abc", "DELETE, GET"),
     ("POST", "/documents/abc", "DELETE, GET"), ("GET", "/qa", "POST"),
     ("DELETE", "/v1/models", "GET"), ("POST", "/static/viewer.js", "GET, HEAD")],
)
def test_a_405_allows_every_method_of_the_path(
    client: httpx.Client, method: str, path: str, allow: str
) -> None:
    response = client.request(method, path)
    assert response.status_code == 405
    assert response.headers["allow"] == allow
    body = response.json()
    error = body["error"] if path.startswith("/v1/") else body
    assert allow in error["message"] and method in error["message"]


@pytest.mark.parametrize("path", ["/qa", "/qa/verify", "/documents", "/v1/chat/completions"])
def test_a_post_without_a_body_is_answered_at_once(client: httpx.Client, path: str) -> None:
    # The body timeout must not hold up the empty body of a request that declares none.
    response = client.post(path, timeout=5)
    assert response.status_code == 422, response.text


def test_a_declared_body_over_the_limit_is_a_413_before_it_is_read(
    client: httpx.Client
) -> None:
    # A list of equal values is one Content-Length; no byte of the body is sent.
    answer = raw_request(client, b"POST /qa HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                         b"Content-Type: application/json\r\n"
                         b"Content-Length: 2000000, 2000000\r\n\r\n", timeout=10)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 413")
    assert json.loads(body)["fields"][0]["field"] == "body"


@pytest.mark.parametrize("length", [b"abc", b"-5", b"+4", b"0x10", b"1e3", b"4_2", b"4, 5"])
def test_an_unreadable_content_length_is_a_400(client: httpx.Client, length: bytes) -> None:
    # uvicorn's HTTP parser (h11) refuses these itself, in plain text, before the app sees
    # the request; what it lets through, the app reads with declared_length (tested below).
    answer = raw_request(client, b"POST /qa HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                         b"Content-Type: application/json\r\nContent-Length: " + length +
                         b"\r\n\r\n{}")
    assert answer.startswith(b"HTTP/1.1 400")


@pytest.mark.parametrize(
    ("values", "length"),
    [([], None), (["42"], 42), (["42, 42"], 42), (["42", "42"], 42), ([" 7 "], 7)],
)
def test_the_content_length_is_read_as_a_byte_count(values: list[str], length: int) -> None:
    scope = {"headers": [(b"content-length", value.encode()) for value in values]}
    assert declared_length(scope) == length


@pytest.mark.parametrize("values", [["abc"], ["-5"], ["+4"], ["4_2"], ["\u0664\u0662"],
                                    ["4, 5"], ["4", "5"], [""]])
def test_a_content_length_that_is_no_byte_count_is_refused(values: list[str]) -> None:
    scope = {"headers": [(b"content-length", value.encode()) for value in values]}
    with pytest.raises(InputError, match="is not a byte count"):
        declared_length(scope)
