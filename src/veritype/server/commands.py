"""The server commands of the CLI: ``veritype serve``."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from veritype._cli import (
    EngineConfigOption,
    ModelPathOption,
    ReaderModelOption,
    StoreOption,
    drafting_with,
    reading_with,
)
from veritype._cli import fail as _fail
from veritype.errors import ConfigurationError, VeritypeError
from veritype.settings import ENV_PREFIX, env

if TYPE_CHECKING:
    from fastapi import FastAPI

_err = Console(stderr=True)

# How `--workers N` hands the settings to each worker process, which builds its own engine:
# as JSON in the environment variables VERITYPE_<name>.
SETTINGS_VARIABLE = "SERVER_SETTINGS"
ENGINE_CONFIG_VARIABLE = "SERVER_ENGINE_CONFIG"


def serve(
    host: Annotated[str, typer.Option("--host", help="Address to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to bind (0: any free port).")] = 8000,
    config: EngineConfigOption = None,
    store: StoreOption = None,
    workers: Annotated[
        int, typer.Option("--workers", help="Worker processes, each with its own engine.")
    ] = 1,
    timeout: Annotated[
        float, typer.Option("--timeout", help="Deadline of one request, in seconds.")
    ] = 120.0,
    body_timeout: Annotated[
        float, typer.Option("--body-timeout", help="Seconds a request's body may take to "
                            "arrive; a slower one gets 408 and its connection is closed.")
    ] = 10.0,
    max_pending: Annotated[
        int, typer.Option("--max-pending", help="Requests queued or running per worker before "
                          "the service answers 429.")
    ] = 16,
    demo: Annotated[
        bool, typer.Option("--demo", help="Ingest the bundled demo corpus into an empty store.")
    ] = False,
    model_path: ModelPathOption = None,
    reader_model: ReaderModelOption = None,
    trace_ttl: Annotated[
        float | None,
        typer.Option("--trace-ttl", help="Delete traces older than this many seconds (default: "
                     "keep every trace).", show_default=False),
    ] = None,
    max_traces: Annotated[
        int | None,
        typer.Option("--max-traces", help="Keep at most this many traces, deleting the oldest "
                     "first (default: no limit).", show_default=False),
    ] = None,
    allowed_host: Annotated[
        list[str] | None,
        typer.Option("--allowed-host", help="A Host name clients may use besides localhost, "
                     "127.0.0.1, [::1] and a specific --host (repeatable); '*' accepts any, "
                     "which is unsafe without API keys.", show_default=False),
    ] = None,
) -> None:
    """Serve the HTTP API, the OpenAI-compatible endpoint and the web trace viewer.

    API keys come from VERITYPE_API_KEYS (comma-separated); without keys the service is
    open and may only bind to a loopback address. A request whose Host header names none
    of the allowed hosts gets 400 (this stops DNS rebinding); behind --host 0.0.0.0, name the
    host clients use with --allowed-host. Evaluation runs shown on the results page are read
    from VERITYPE_EVAL_DIR (default: eval-runs).
    """
    try:
        import uvicorn

        from veritype.engine import EngineConfig
        from veritype.server.logs import configure_json_logging
        from veritype.server.settings import ServerSettings, check_exposure
    except ImportError as error:
        raise _fail(
            f"serving needs the serve extra ({error.name} is missing): "
            'pip install "veritype[serve]"'
        ) from None
    if workers < 1:
        raise _fail(f"--workers must be at least 1, got {workers}")
    try:
        settings = ServerSettings.load(
            host=host, port=port, request_timeout=timeout, body_timeout=body_timeout,
            max_pending=max_pending,
            allowed_hosts=tuple(allowed_host) if allowed_host else None,
        )
        check_exposure(settings)
    except ConfigurationError as error:
        raise _fail(str(error)) from None
    overrides: dict[str, Any] = {"store": store, "trace_ttl": trace_ttl,
                                 "max_traces": max_traces}
    if demo:
        overrides["demo"] = True
    if model_path is not None:
        # Each worker's engine loads the model once, when it first drafts.
        overrides["generator"] = "local"
    try:
        engine_config = EngineConfig.load(config, **overrides)
        if model_path is not None:
            engine_config = drafting_with(engine_config, model_path)
        if reader_model is not None:
            # As with --model-path, each worker loads the reader once, at its first draft.
            engine_config = reading_with(engine_config, reader_model)
    except VeritypeError as error:
        raise _fail(str(error)) from None

    configure_json_logging()
    if workers == 1:
        app = _build_app(engine_config.model_dump_json(), settings.model_dump_json())
        uvicorn.run(app, host=host, port=port, log_config=None, access_log=False)
        return
    os.environ[ENV_PREFIX + SETTINGS_VARIABLE] = settings.model_dump_json()
    os.environ[ENV_PREFIX + ENGINE_CONFIG_VARIABLE] = engine_config.model_dump_json()
    uvicorn.run(
        "veritype.server.commands:app_from_environment", factory=True, host=host, port=port,
        workers=workers, log_config=None, access_log=False,
    )


def _build_app(engine_config_json: str, settings_json: str) -> FastAPI:
    from veritype.engine import Engine, EngineConfig
    from veritype.server.app import create_app
    from veritype.server.settings import ServerSettings

    try:
        engine = Engine(EngineConfig.model_validate_json(engine_config_json))
    except VeritypeError as error:
        raise _fail(str(error)) from None
    return create_app(
        engine, ServerSettings.model_validate_json(settings_json), close_engine=True
    )


def app_from_environment() -> FastAPI:
    """The app of one worker process of ``serve --workers N``."""
    from veritype.server.logs import configure_json_logging

    configure_json_logging()
    return _build_app(_handed_over(ENGINE_CONFIG_VARIABLE), _handed_over(SETTINGS_VARIABLE))


def _handed_over(name: str) -> str:
    value = env(name)
    if value is None:
        raise ConfigurationError(f"{ENV_PREFIX}{name} is not set: this app factory serves the "
                                 "worker processes of `veritype serve --workers N`")
    return value


def register(app: typer.Typer) -> None:
    """Add the server commands to the main CLI."""
    app.command("serve")(serve)
