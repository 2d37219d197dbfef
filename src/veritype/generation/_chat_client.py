"""A client of an OpenAI-compatible ``/chat/completions`` endpoint: the base of the
``openai`` generator and the ``openai`` judge.

vLLM, the llama.cpp server, Ollama and hosted APIs all speak it. Connection errors, 5xx and
429 answers are retried with exponential backoff; a server that stays unreachable is a
``GenerationError`` naming its URL. A server that refuses the ``logprobs`` request field is
asked again without it, and never again with it.
"""

from __future__ import annotations

import time
from typing import Any, TypedDict

import httpx

from veritype._closing import Closing
from veritype.errors import ConfigurationError, GenerationError
from veritype.settings import env

DEFAULT_BASE_URL = "http://127.0.0.1:8000/v1"
_RETRY_STATUS = frozenset({429, 500, 502, 503, 504})
_CHAT = "/chat/completions"
_LOGPROB_FIELDS = ("logprobs", "top_logprobs")


class Endpoint(TypedDict, total=False):
    """Where and how to reach the server: ``base_url`` (default
    ``$VERITYPE_OPENAI_BASE_URL``, else a server on 127.0.0.1:8000), ``model`` (default
    ``$VERITYPE_OPENAI_MODEL``, else the first model the server lists), ``api_key`` (default
    ``$VERITYPE_OPENAI_API_KEY``), ``timeout`` seconds per request, ``retries`` after the
    first attempt, ``backoff`` seconds before the first retry (doubling each time)."""

    base_url: str | None
    model: str | None
    api_key: str | None
    timeout: float
    retries: int
    backoff: float


class ChatClient(Closing):
    """Sends chat bodies to an OpenAI-compatible endpoint with the retry policy."""

    def __init__(
        self,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float = 60.0,
        retries: int = 3,
        backoff: float = 0.5,
    ) -> None:
        if retries < 0:
            raise ConfigurationError(f"retries must be >= 0, got {retries}")
        if timeout <= 0 or backoff < 0:
            raise ConfigurationError("timeout must be positive and backoff non-negative")
        self.base_url = (base_url or env("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        self._model = model or env("OPENAI_MODEL")
        key = api_key or env("OPENAI_API_KEY")
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self.retries = retries
        self.backoff = backoff
        # Cleared for good once the server refuses the logprobs request field.
        self.logprobs = True
        self._client = httpx.Client(
            base_url=self.base_url, headers=headers,
            timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)),
        )

    @property
    def model(self) -> str:
        """The model name sent with each request; asked of the server when not given."""
        if self._model is None:
            listed = self._request("GET", "/models").json().get("data") or []
            if not listed:
                raise GenerationError(
                    f"the server at {self.base_url} lists no model; pass model= / --model"
                )
            self._model = str(listed[0]["id"])
        return self._model

    def close(self) -> None:
        self._client.close()

    def post_chat(self, body: dict[str, Any]) -> httpx.Response:
        """POST a chat body with the retry policy; a server that refuses ``logprobs`` gets
        the body again without them."""
        try:
            return self._request("POST", _CHAT, json=body)
        except _LogprobsRefusedError:
            self.logprobs = False
            return self._request("POST", _CHAT, json=_without_logprobs(body))

    def open_stream(self, body: dict[str, Any]) -> ChatStream:
        """The chat body's server-sent events, as a context manager giving the response."""
        return ChatStream(self, body)

    def _request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """Send with retries; a refused ``logprobs`` request raises ``_LogprobsRefusedError``."""
        url = f"{self.base_url}{path}"
        for attempt in range(self.retries + 1):
            last = attempt == self.retries
            try:
                response = self._client.request(method, path, **kwargs)
            except (httpx.ConnectError, httpx.ConnectTimeout, httpx.RemoteProtocolError) as error:
                if last:
                    raise _unreachable(url, attempt, error) from None
            except httpx.TimeoutException:
                raise GenerationError(
                    f"the server at {url} did not answer within the timeout; raise timeout="
                ) from None
            else:
                if response.is_success:
                    return response
                if _refuses_logprobs(response, kwargs.get("json")):
                    raise _LogprobsRefusedError
                if response.status_code not in _RETRY_STATUS or last:
                    raise _failed(method, url, response)
            time.sleep(self.backoff * 2**attempt)
        raise AssertionError("unreachable: the last attempt returns or raises")


class _LogprobsRefusedError(Exception):
    """The server answered an error that blames the ``logprobs`` request field; never leaves
    this module (``post_chat`` asks again without the field)."""


class ChatStream:
    """An SSE response opened with the client's retry policy and closed on exit."""

    def __init__(self, client: ChatClient, body: dict[str, Any]) -> None:
        self._chat = client
        self._body = body
        self._response: httpx.Response | None = None

    def __enter__(self) -> httpx.Response:
        chat = self._chat
        url = f"{chat.base_url}{_CHAT}"
        for attempt in range(chat.retries + 1):
            try:
                request = chat._client.build_request("POST", _CHAT, json=self._body)
                response = chat._client.send(request, stream=True)
            except (httpx.ConnectError, httpx.ConnectTimeout) as error:
                if attempt == chat.retries:
                    raise _unreachable(url, attempt, error) from None
            else:
                if response.is_success:
                    self._response = response
                    return response
                response.read()
                response.close()
                if _refuses_logprobs(response, self._body):
                    chat.logprobs = False
                    self._body = _without_logprobs(self._body)
                    continue
                if response.status_code not in _RETRY_STATUS or attempt == chat.retries:
                    raise _failed("POST", url, response)
            time.sleep(chat.backoff * 2**attempt)
        raise GenerationError(f"the server at {chat.base_url} refused the stream request")

    def __exit__(self, *exc: object) -> None:
        if self._response is not None:
            self._response.close()


def _unreachable(url: str, attempt: int, error: Exception) -> GenerationError:
    return GenerationError(
        f"cannot reach the OpenAI-compatible server at {url} after {attempt + 1} attempts "
        f"({error.__class__.__name__}: {error}); start it, or point --base-url / "
        "VERITYPE_OPENAI_BASE_URL at a running one"
    )


def _failed(method: str, url: str, response: httpx.Response) -> GenerationError:
    return GenerationError(
        f"{method} {url} failed with HTTP {response.status_code}: {response.text[:300]}"
    )


def _without_logprobs(body: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in body.items() if key not in _LOGPROB_FIELDS}


def _refuses_logprobs(response: httpx.Response, body: object) -> bool:
    return (
        isinstance(body, dict)
        and "logprobs" in body
        and response.status_code in (400, 422, 500)
        and "logprob" in response.text.lower()
    )
