"""The ``veritype train`` commands: verifiers, the answer model's calibration and reader, soft
labels and the default aggregator."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from veritype._cli import DataDirOption, fail, output_console, parse_key_values, rich_progress
from veritype.errors import VeritypeError

_out = output_console()

train_app = typer.Typer(help="Train veritype's verifier models (needs the train extra).",
                        no_args_is_help=True)


@train_app.command("verifier")
def train_verifier(
    config: Annotated[Path, typer.Option("--config", "-c", help="Training config (TOML).")],
    data_dir: DataDirOption,
    output_dir: Annotated[
        Path | None,
        typer.Option("--output-dir", help="Where runs are written (overrides the config)."),
    ] = None,
    resume: Annotated[
        bool, typer.Option("--resume", help="Continue from the run's last checkpoint.")
    ] = False,
    ship_to: Annotated[
        Path | None,
        typer.Option("--ship-to", help="Also copy the finished model into this directory."),
    ] = None,
    threads: Annotated[
        int | None, typer.Option("--threads", help="CPU threads (overrides the config).")
    ] = None,
) -> None:
    """Assemble data, fine-tune, evaluate, export to ONNX int8 and write the model card."""
    try:
        from veritype.train.run import run_training
    except ImportError as error:
        raise fail(
            f"training needs the train extra ({error.name} is missing): "
            'pip install -e ".[train]"'
        ) from None

    try:
        with rich_progress() as progress:
            run_training(
                config, data_dir, output_dir=output_dir, resume=resume, ship_to=ship_to,
                threads=threads, progress=progress,
            )
    except VeritypeError as error:
        raise fail(str(error)) from None


@train_app.command("answer-calibration")
def train_answer_calibration(
    model: Annotated[Path, typer.Option("--model", help="The exported answer model's folder "
                                        "(model.onnx, tokenizer.json, labels.json).")],
    data_dir: DataDirOption,
    questions: Annotated[int, typer.Option(
        "--questions", min=50, help="Calibration questions asked (default: one per "
        "calibration row).")] = 1000,
) -> None:
    """Calibrate an answer model on HaluEval-QA rows it never read: its threshold, P(right)
    and confidence labels (writes calibration.json and calibration_report.json beside it)."""
    from veritype._cli import progress as question_progress
    from veritype.train.answer_calibration import REPORT_FILE, calibrate_answers

    try:
        calibration = calibrate_answers(model, data_dir, questions=questions,
                                        progress=question_progress)
    except VeritypeError as error:
        raise fail(str(error)) from None
    report = json.loads((model / REPORT_FILE).read_text())
    _out.print(f"threshold {calibration.threshold:.4f}, high from P(right) "
                  f"{calibration.high:.3f}, medium from {calibration.medium:.3f}; answered "
                  f"{report['coverage']:.3f} of {report['questions']} questions, right "
                  f"{report['accuracy_answered']:.3f}")


@train_app.command("answer-reader")
def train_answer_reader(
    corpora: Annotated[list[Path], typer.Option(
        "--corpora", help="A folder of corpora with questions and gold answers (repeatable): "
        "benchmarks/data/answer_corpora (its calibration half only) or tests/data/corpora.")],
    out: Annotated[Path, typer.Option("--out", help="Where reader.json and "
                                      "reader_report.json are written.")],
    answer_model: Annotated[str, typer.Option(
        "--answer-model", help="The answer model whose P(answers) the reader reads: a name "
        "or a folder.")] = "answers",
    data_dir: Annotated[Path | None, typer.Option(
        "--data-dir", help="The shared data folder: adds HaluEval-QA calibration rows "
        "7000-7999 as one more source.")] = None,
) -> None:
    """Fit the answer reader (the answer model's P(answers) weighed with what the question
    asks) on questions written for other corpora, calibrated by holding out each corpus."""
    from veritype.train.answer_reader import train_answer_reader as fit

    try:
        report = fit(corpora, out, answer_model=answer_model, data_dir=data_dir,
                     progress=_out.print)
    except VeritypeError as error:
        raise fail(str(error)) from None
    best = report["best_candidate_holds_answer"]
    held = report["calibration"]["held_out"]["all"]
    _out.print(
        f"held out by corpus, the best-ranked sentence holds the answer for {best['reader']} "
        f"of {best['answerable']} answerable questions (answer model alone "
        f"{best['answer_model']}, shared words {best['shared_words']}); held out, shown answers "
        f"right {held['right_when_shown']} at coverage {held['answerable_coverage']}, "
        f"unanswerable abstained {held['unanswerable_abstained']}")


@train_app.command("label")
def train_label(
    config: Annotated[Path, typer.Option("--config", "-c", help="The recipe whose training "
                                         "pairs are labelled (TOML).")],
    teacher: Annotated[str, typer.Option("--teacher", help="judge, or a verifier model: a "
                                         "shipped name, an exported folder or a hub id.")],
    out: Annotated[Path, typer.Option("--out", help="The soft-label file (JSON lines); an "
                                      "unfinished one is continued.")],
    data_dir: DataDirOption,
    teacher_option: Annotated[
        list[str] | None,
        typer.Option("--teacher-option", help="KEY=VALUE for the judge teacher, repeatable "
                     "(model_path=..., judge=openai, base_url=...)."),
    ] = None,
    threads: Annotated[int, typer.Option("--threads", help="CPU threads of a model teacher.")
                       ] = 2,
) -> None:
    """Score a recipe's training pairs with a teacher, for distillation: name the file in a
    later recipe's soft_label_files."""
    try:
        from veritype.train.config import TrainConfig
        from veritype.train.label import label_pairs, make_teacher
    except ImportError as error:
        raise fail(
            f"labelling needs the train extra ({error.name} is missing): "
            'pip install -e ".[train]"'
        ) from None
    options = parse_key_values(teacher_option or [], "--teacher-option")
    try:
        recipe = TrainConfig.load(config)
        scorer = make_teacher(teacher, threads=threads, **options)
        with rich_progress() as progress:
            total = label_pairs(recipe, data_dir, scorer, out, progress=progress)
    except VeritypeError as error:
        raise fail(str(error)) from None
    typer.echo(f"{total} pairs labelled by {teacher} in {out}")


@train_app.command("aggregator")
def train_aggregator(
    data_dir: DataDirOption,
    output_dir: Annotated[
        Path, typer.Option("--output-dir", help="Where aggregator.json and its card go.")
    ],
    seed: Annotated[int, typer.Option("--seed", help="Sampling seed of the made-up pairs.")] = 0,
    judge: Annotated[
        bool, typer.Option("--judge", help="Also fit the judge's head on a judged sample of "
                           "the claims the encoders leave unsettled (needs the judge extra; "
                           "about 20 minutes on 2 cores).")
    ] = False,
    judge_head_from: Annotated[
        Path | None, typer.Option("--judge-head-from", show_default=False,
                                  help="Reuse the judge head of this earlier aggregator.json, "
                                  "shifted to the new τ, instead of judging a sample anew.")
    ] = None,
    per_source: Annotated[
        int | None, typer.Option("--per-source", min=50, show_default="every claim",
                                 help="Fit on a sample of at most this many claims of each "
                                 "source (seeded): a fraction of the scoring time.")
    ] = None,
) -> None:
    """Fit the default aggregator on training-side data from several sources; choose its views
    by leave-one-source-out and its thresholds on the pooled data; write the model, its report
    and its card. Scores are cached in the output folder: a rerun scores only what is new."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from veritype.train.aggregator import fit_default

    with Progress("[progress.description]{task.description}", BarColumn(),
                  MofNCompleteColumn(), TimeRemainingColumn(), transient=True) as progress:
        task = progress.add_task("scoring pairs", total=None)
        try:
            report = fit_default(
                data_dir, output_dir, seed=seed, judge=judge, per_source=per_source,
                judge_head_from=judge_head_from,
                on_progress=lambda done, total: progress.update(task, completed=done,
                                                                total=total),
            )
        except VeritypeError as error:
            raise fail(str(error)) from None
    chosen = report["chosen"]
    # The figure the views were chosen by (``fit_default``): right less wrong, held out.
    mean = report["leave_one_source_out"][chosen["candidate"]]["mean_net_right"]
    single = report["leave_one_source_out"][chosen["best_single_view"]]
    typer.echo(
        f"views {chosen['candidate']}: tau {chosen['tau']:.3f}, tau_low {chosen['tau_low']:.3f}, "
        f"kappa {chosen['kappa']:.3f}; held-out right less wrong {mean:.3f} (best single view "
        f"{chosen['best_single_view']}: {single['mean_net_right']:.3f}) -> {output_dir}"
    )


def register(app: typer.Typer) -> None:
    """Add the ``train`` commands to ``app``."""
    app.add_typer(train_app, name="train")
