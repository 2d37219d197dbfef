"""The HTTP API against a real service: answers, streaming, documents, traces, evaluation
runs, metrics, logs, and every kind of bad input a client can send."""

from __future__ import annotations

import json
import logging
import re
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_support import DOCUMENTS, EVAL_RUN

from veritype.answer import GroundedAnswer
from veritype.server.logs import ACCESS_LOGGER, JsonFormatter
from veritype.server.models import WHITESPACE_CLASS

pytestmark = pytest.mark.needs_serve


@pytest.fixture(scope="module")
def client(base_url: str) -> httpx.Client:
    with httpx.Client(base_url=base_url, timeout=60) as http:
        yield http


def events(text: str) -> list[tuple[str, dict[str, Any]]]:
    """Parse a server-sent-event body into (event, data) pairs."""
    parsed = []
    for block in text.strip().split("\n\n"):
        name = next(line[6:].strip() for line in block.splitlines() if line.startswith("event:"))
        data = "\n".join(line[5:].lstrip() for line in block.splitlines()
                         if line.startswith("data:"))
        parsed.append((name, json.loads(data)))
    return parsed


def document_text(client: httpx.Client, doc_id: str) -> str:
    response = client.get(f"/documents/{doc_id}")
    assert response.status_code == 200, response.text
    text: str = response.json()["text"]
    return text


def test_health_answers_without_touching_the_engine(client: httpx.Client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["status"] == "ok"
    assert response.headers["x-request-id"]


def test_openapi_describes_every_endpoint(client: httpx.Client) -> None:
    spec = client.get("/openapi.json").json()
    for path in ("/qa", "/qa/verify", "/documents", "/documents/{doc_id}", "/traces/{trace_id}",
                 "/healthz", "/metrics", "/evals", "/v1/chat/completions", "/v1/models"):
        assert path in spec["paths"], path
    query = spec["components"]["schemas"]["QARequest"]["properties"]["query"]
    assert query["maxLength"] == 2000


def test_openapi_states_the_rules_the_service_enforces(client: httpx.Client) -> None:
    spec = client.get("/openapi.json").json()
    schemas = spec["components"]["schemas"]
    query = re.compile(schemas["QARequest"]["properties"]["query"]["pattern"])
    for text, allowed in (("When?", True), (" \n\u3000", False), ("Wh\u0000en?", False),
                          ("\ufeff", True), ("\u001c", False)):
        assert bool(query.search(text)) is allowed, repr(text)
    evidence = schemas["VerifyRequest"]["properties"]["evidence"]["anyOf"][0]
    assert evidence["minItems"] == 1 and evidence["items"]["pattern"] == query.pattern
    filters = schemas["Filters"]
    assert filters["additionalProperties"] is False
    assert set(filters["properties"]) == {"source", "title", "added_after", "added_before"}
    assert {"format": "date"} in filters["properties"]["added_after"]["anyOf"][0]["anyOf"]
    document_text = re.compile(schemas["DocumentIn"]["properties"]["text"]["pattern"])
    assert document_text.search("a\u0000b") and not document_text.search("\u0000\u0007 ")
    chat = schemas["ChatRequest"]["properties"]
    assert chat["model"]["enum"] == ["veritype", "veritype-brief", "veritype-detailed"]

    operations = {(path, method): operation for path, item in spec["paths"].items()
                  for method, operation in item.items()}
    for (path, method), operation in operations.items():
        for parameter in operation.get("parameters", []):
            if parameter["in"] == "path":  # ids without control characters
                assert re.search(parameter["schema"]["pattern"], "a\u0000") is None, path
        statuses = set(operation["responses"])
        if "requestBody" in operation:
            assert {"400", "413", "422"} <= statuses, (path, method)
        if "{" in path:
            assert "404" in statuses, (path, method)
        if path not in ("/healthz", "/v1/models", "/metrics") and not path.startswith("/evals"):
            assert {"429", "504"} <= statuses, (path, method)
        assert "security" not in operation  # an open service asks for no key
    ingest = operations[("/documents", "post")]
    assert "same source" in ingest["responses"]["422"]["description"]
    assert "1,000,000 bytes" in spec["info"]["description"]


def test_the_whitespace_of_the_patterns_is_what_strip_removes() -> None:
    blank = re.compile(f"[{WHITESPACE_CLASS}]")
    assert [c for c in map(chr, range(sys.maxunicode + 1))
            if bool(blank.fullmatch(c)) != c.isspace()] == []


def test_ask_renders_only_verified_claims_with_resolving_citations(client: httpx.Client) -> None:
    response = client.post("/qa", json={"query": "When was the Eiffel Tower completed?"})
    assert response.status_code == 200, response.text
    answer = GroundedAnswer.model_validate(response.json())
    assert not answer.abstained
    assert "1889" in answer.answer
    rendered = [claim for claim in answer.claims if claim.rendered]
    assert rendered and all(claim.type.value == "verified" for claim in rendered)
    for claim in rendered:
        assert claim.citations
        for citation in claim.citations:
            text = document_text(client, citation.doc_id)
            assert text[citation.start:citation.end] == citation.quote


def test_ask_streams_each_claim_then_the_answer(client: httpx.Client) -> None:
    response = client.post(
        "/qa",
        json={"query": "How tall is the Eiffel Tower?", "mode": "detailed"},
        headers={"Accept": "text/event-stream"},
    )
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    stream = events(response.text)
    names = [name for name, _ in stream]
    assert names[-1] == "answer" and names.count("answer") == 1
    claims = [data for name, data in stream if name == "claim"]
    final = GroundedAnswer.model_validate(stream[-1][1])
    assert [claim["id"] for claim in claims] == [claim.id for claim in final.claims]
    assert len(claims) >= 1


def test_ask_with_a_filter_keeps_to_matching_documents(client: httpx.Client) -> None:
    response = client.post("/qa", json={"query": "When did she win the Nobel Prize?",
                                        "filters": {"title": "Curie"}})
    assert response.status_code == 200, response.text
    trace = client.get(f"/traces/{response.json()['trace_id']}").json()
    assert trace["evidence"]
    assert {chunk["title"] for chunk in trace["evidence"]} == {"Marie Curie"}


def test_verify_keeps_a_wrong_claim_out(client: httpx.Client) -> None:
    evidence = DOCUMENTS[0]["text"]
    response = client.post("/qa/verify", json={
        "answer": "The Eiffel Tower was completed in 1889. The tower is 500 metres tall.",
        "evidence": [evidence],
    })
    assert response.status_code == 200, response.text
    answer = GroundedAnswer.model_validate(response.json())
    by_text = {claim.text: claim for claim in answer.claims}
    completed = by_text["The Eiffel Tower was completed in 1889."]
    tall = by_text["The Eiffel Tower is 500 metres tall."]  # resolved: "The tower" is it
    assert completed.rendered and completed.type.value == "verified"
    assert not tall.rendered and tall.type.value != "verified"
    assert "500" not in answer.answer


def test_verify_without_evidence_searches_the_corpus(client: httpx.Client) -> None:
    response = client.post(
        "/qa/verify",
        json={"answer": "Penicillin was discovered by Alexander Fleming in 1928."},
        headers={"Accept": "text/event-stream"},
    )
    stream = events(response.text)
    final = GroundedAnswer.model_validate(stream[-1][1])
    assert stream[-1][0] == "answer"
    assert final.references and final.references[0].title == "Penicillin"


def test_a_trace_holds_the_graph_and_evidence_of_its_answer(client: httpx.Client) -> None:
    answer = client.post("/qa", json={"query": "How high is Mount Everest?"}).json()
    trace = client.get(f"/traces/{answer['trace_id']}")
    assert trace.status_code == 200
    body = trace.json()
    assert body["trace_id"] == answer["trace_id"] and body["kind"] == "ask"
    assert body["grounded"] == answer
    assert {node["claim"]["claim_id"] for node in body["graph"]["nodes"]} >= {
        claim["id"] for claim in answer["claims"]}
    chunks = {chunk["chunk_id"]: chunk for chunk in body["evidence"]}
    for reference in answer["references"]:
        chunk = chunks[reference["chunk_id"]]
        local = reference["start"] - chunk["start"]
        assert chunk["text"][local:local + len(reference["quote"])] == reference["quote"]


def test_an_unknown_trace_is_a_404_with_a_json_body(client: httpx.Client) -> None:
    response = client.get("/traces/no-such-trace")
    assert response.status_code == 404
    assert response.json()["error"] == "not_found"
    assert "no-such-trace" in response.json()["message"]


def test_documents_can_be_added_listed_read_and_deleted(client: httpx.Client) -> None:
    text = "The Great Wall of China is more than 21,000 kilometres long."
    added = client.post("/documents", json={"documents": [
        {"text": text, "title": "Great Wall"},
        {"text": "Lake Baikal is the deepest lake on Earth.", "title": "Baikal",
         "source": "notes/baikal"},
    ]})
    assert added.status_code == 201, added.text
    body = added.json()
    assert body["added"] == 2
    wall, baikal = body["documents"]
    assert baikal["source"] == "notes/baikal"

    again = client.post("/documents", json={"documents": [{"text": text, "title": "Great Wall"}]})
    assert again.json()["unchanged"] == 1 and again.json()["documents"][0] == wall

    page = client.get("/documents", params={"limit": 2, "offset": 0}).json()
    assert page["total"] == len(DOCUMENTS) + 2 and len(page["items"]) == 2
    last = client.get("/documents", params={"limit": 2, "offset": page["total"] - 1}).json()
    assert [item["doc_id"] for item in last["items"]] == [baikal["doc_id"]]

    detail = client.get(f"/documents/{wall['doc_id']}").json()
    assert detail["text"] == text and detail["title"] == "Great Wall"
    assert detail["chunk_spans"] and detail["chunk_spans"][0]["start"] == 0

    for doc in (wall, baikal):
        assert client.delete(f"/documents/{doc['doc_id']}").status_code == 204
        assert client.get(f"/documents/{doc['doc_id']}").status_code == 404
        gone = client.delete(f"/documents/{doc['doc_id']}")
        assert gone.status_code == 404 and doc["doc_id"] in gone.json()["message"]
    assert client.get("/documents").json()["total"] == len(DOCUMENTS)


def test_metrics_count_requests_and_claims(client: httpx.Client) -> None:
    client.post("/qa/verify", json={"answer": "Mount Everest is the highest mountain above "
                                              "sea level.", "evidence": [DOCUMENTS[2]["text"]]})
    text = client.get("/metrics").text
    assert 'veritype_http_requests_total{method="POST",route="/qa/verify",status="200"}' in text
    verified = [line for line in text.splitlines()
                if line.startswith('veritype_claims_total{type="verified"}')]
    assert verified and float(verified[0].split()[-1]) >= 1
    assert "veritype_pending_jobs" in text


def test_each_request_is_logged_as_one_json_line(
    client: httpx.Client, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger=ACCESS_LOGGER):
        answer = client.post("/qa", json={"query": "Who discovered penicillin?"}).json()
        client.post("/qa", json={"query": ""})
    records = [r for r in caplog.records if r.name == ACCESS_LOGGER]
    lines = [json.loads(JsonFormatter().format(record)) for record in records]
    ok = next(line for line in lines if line.get("query_id") == answer["trace_id"])
    assert ok["status"] == 200 and ok["path"] == "/qa" and ok["latency_ms"] > 0
    assert ok["evidence"] >= 1 and ok["confidence"] == answer["confidence"]
    assert sum(ok["claims"].values()) == len(answer["claims"])
    assert {"failures", "abstention_reason"} <= set(ok)
    bad = next(line for line in lines if line["status"] == 422)
    assert bad["errors"] and "query" in bad["errors"][0]


def test_evaluation_runs_are_listed_and_read(client: httpx.Client) -> None:
    runs = client.get("/evals").json()
    assert [run["run"] for run in runs] == [EVAL_RUN]
    assert runs[0]["headline"]["precision"] == 0.9712
    assert runs[0]["plots"] == ["precision_recall.png"]
    detail = client.get(f"/evals/{EVAL_RUN}").json()
    assert detail["config"]["tau"] == 0.8 and detail["report_md"].startswith("# TruthfulQA")
    plot = client.get(f"/evals/{EVAL_RUN}/files/precision_recall.png")
    assert plot.status_code == 200 and plot.headers["content-type"] == "image/png"
    assert plot.content.startswith(b"\x89PNG")


@pytest.mark.parametrize(
    "path",
    [
        "/evals/..%2F..%2Fetc",
        f"/evals/{EVAL_RUN}/files/..%2Fsecret.png",
        f"/evals/{EVAL_RUN}/files/report.json",
        f"/evals/{EVAL_RUN}/files/outside.png",
        f"/evals/{EVAL_RUN}/files/%2Fetc%2Fpasswd",
        "/evals/halueval-20261121-090000",
        "/evals/notes",
    ],
)
def test_evaluation_paths_cannot_leave_their_run(client: httpx.Client, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("application/json")


def test_the_viewer_is_served_with_its_assets(client: httpx.Client, base_url: str) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert "veritype trace viewer" in page.text
    assert "https://" not in page.text  # everything is served locally
    for asset in ("/static/viewer.js", "/static/viewer.css"):
        assert client.get(asset).status_code == 200
    assert "veritype trace viewer" in client.get("/traces/abc/view").text


def test_an_empty_eval_dir_lists_no_runs(tmp_path: Path) -> None:
    from veritype.server.evals import list_runs

    assert list_runs(tmp_path / "missing") == []


@pytest.mark.parametrize("evidence", [None, ["Some evidence text."]])
def test_an_answer_without_a_checkable_claim_abstains(
    client: httpx.Client, evidence: list[str] | None
) -> None:
    # Found by schemathesis: text that decomposes into no claim at all.
    response = client.post("/qa/verify", json={"answer": "\U000efd04\u00a2", "evidence": evidence})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["abstained"] and body["claims"] == []
