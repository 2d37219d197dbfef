"""The OpenAI-compatible endpoint, driven by the official ``openai`` client."""

from __future__ import annotations

import httpx
import pytest

from veritype.answer import GroundedAnswer

openai = pytest.importorskip("openai")

pytestmark = pytest.mark.needs_serve


@pytest.fixture(scope="module")
def client(base_url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=base_url + "/v1", api_key="unused-on-loopback", max_retries=0,
                         timeout=60)


def test_models_are_listed(client: openai.OpenAI) -> None:
    names = [model.id for model in client.models.list()]
    assert names == ["veritype", "veritype-brief", "veritype-detailed"]


def test_a_completion_carries_the_verified_answer_and_the_grounded_answer(
    client: openai.OpenAI,
) -> None:
    completion = client.chat.completions.create(
        model="veritype",
        messages=[
            {"role": "system", "content": "Answer from the documents."},
            {"role": "user", "content": "Who won the Nobel Prize?"},
            {"role": "assistant", "content": "Which one?"},
            {"role": "user", "content": "When was the Eiffel Tower completed?"},
        ],
    )
    grounded = GroundedAnswer.model_validate(completion.model_extra["veritype"])
    assert completion.choices[0].finish_reason == "stop"
    assert completion.choices[0].message.role == "assistant"
    assert completion.choices[0].message.content == grounded.answer
    assert "1889" in grounded.answer and not grounded.abstained
    assert completion.usage is not None and completion.usage.prompt_tokens == 6  # words


def test_an_abstention_replies_with_its_reason(client: openai.OpenAI) -> None:
    completion = client.chat.completions.create(
        model="veritype-brief",
        messages=[{"role": "user", "content": [
            {"type": "text", "text": "What is the boiling point of liquid nitrogen?"}]}],
    )
    grounded = GroundedAnswer.model_validate(completion.model_extra["veritype"])
    if grounded.abstained:
        assert completion.choices[0].message.content == grounded.abstention_reason
    else:
        assert completion.choices[0].message.content == grounded.answer


def test_a_streamed_completion_ends_with_the_grounded_answer(client: openai.OpenAI) -> None:
    stream = client.chat.completions.create(
        model="veritype-detailed",
        messages=[{"role": "user", "content": "When was the Eiffel Tower completed?"}],
        stream=True,
    )
    chunks = list(stream)
    text = "".join(chunk.choices[0].delta.content or "" for chunk in chunks)
    assert chunks[0].choices[0].delta.role == "assistant"
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert len({chunk.id for chunk in chunks}) == 1
    grounded = GroundedAnswer.model_validate(chunks[-1].model_extra["veritype"])
    assert text == (grounded.abstention_reason if grounded.abstained else grounded.answer)
    assert "1889" in grounded.answer


def test_the_raw_stream_ends_with_done(base_url: str) -> None:
    response = httpx.post(base_url + "/v1/chat/completions", timeout=60, json={
        "model": "veritype", "stream": True,
        "messages": [{"role": "user", "content": "Who discovered penicillin?"}]})
    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.text.rstrip().endswith("data: [DONE]")


def test_an_unknown_model_is_not_found(client: openai.OpenAI) -> None:
    with pytest.raises(openai.NotFoundError, match="unknown model"):
        client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "user", "content": "hello"}])


def test_a_conversation_without_a_user_message_is_refused(client: openai.OpenAI) -> None:
    with pytest.raises(openai.UnprocessableEntityError, match="role 'user'"):
        client.chat.completions.create(
            model="veritype", messages=[{"role": "system", "content": "be brief"}])


def test_an_oversized_question_is_refused(client: openai.OpenAI) -> None:
    with pytest.raises(openai.UnprocessableEntityError, match="2,000"):
        client.chat.completions.create(
            model="veritype", messages=[{"role": "user", "content": "why " * 600}])


@pytest.mark.parametrize("stream", [0, 1, "true", None])
def test_stream_must_be_a_json_boolean(base_url: str, stream: object) -> None:
    response = httpx.post(base_url + "/v1/chat/completions", timeout=60, json={
        "model": "veritype", "stream": stream,
        "messages": [{"role": "user", "content": "Who discovered penicillin?"}]})
    assert response.status_code == 422
    assert "stream" in response.text


QUESTION = "When was the Eiffel Tower completed?"
# Conversations at the edge of "every message with role user has text", each with whether
# the published schema and the service must accept it.
CONVERSATIONS = [
    ([{"role": "user"}], False),
    ([{"role": "user", "content": None}], False),
    ([{"role": "user", "content": " \n"}], False),
    ([{"role": "user", "content": []}], False),
    ([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}], False),
    ([{"role": "user", "content": [{"type": "text", "text": " "}, {"type": "text"}]}], False),
    ([{"role": "user"}, {"role": "user", "content": QUESTION}], False),
    ([{"role": "system"}, {"role": "assistant", "content": None},
      {"role": "user", "content": QUESTION}], True),
    ([{"role": "user", "content": [{"type": "text", "text": " "},
                                   {"type": "text", "text": QUESTION}]}], True),
    ([{"role": "user", "content": "Who won?"}, {"role": "assistant", "content": "Which?"},
      {"role": "user", "content": QUESTION}], True),
]


@pytest.mark.parametrize(("messages", "accepted"), CONVERSATIONS)
def test_the_schema_says_which_messages_the_service_accepts(
    base_url: str, messages: list[dict[str, object]], accepted: bool
) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    spec = httpx.get(base_url + "/openapi.json").json()
    schema = {"$ref": "#/components/schemas/ChatRequest", "components": spec["components"]}
    body = {"model": "veritype", "messages": messages}
    assert jsonschema.Draft202012Validator(schema).is_valid(body) is accepted
    response = httpx.post(base_url + "/v1/chat/completions", timeout=60, json=body)
    assert response.status_code == (200 if accepted else 422), response.text
    if not accepted:
        assert response.json()["error"]["fields"][0]["problem"] == (
            "a message with role 'user' must have text")
