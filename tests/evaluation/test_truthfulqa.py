"""TruthfulQA: the reference protocol's claims and split, calibration-only selection, and the
selection redone per split seed on view scores computed once."""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from veritype.aggregate import LearnedAggregator
from veritype.cli import app
from veritype.errors import DataError
from veritype.evaluation.configurations import (
    LearnedInputs,
    feature_names,
    fit_learned,
    view_results,
)
from veritype.evaluation.data import Example, truthfulqa_reference_examples
from veritype.evaluation.runner import EvalSettings
from veritype.evaluation.scoring import BlockScores, LocalEngine, OnBlock, Pair, score_examples
from veritype.evaluation.truthfulqa import (
    LEARNED,
    PROTOCOLS,
    VERBATIM,
    Scored,
    Selection,
    Split,
    TruthfulQA,
    prepare,
    reference_split,
    section,
    seed_spread,
    select,
)

runner = CliRunner()
# Questions and views of the small real score table: enough calibration claims for the
# P ≥ 0.975 thresholds to exist, and quick to score.
QUESTIONS = 90
VIEWS = ("numeric", "lexical", "nli")


def test_reference_protocol_gives_the_reference_claims_and_split(data_dir: Path) -> None:
    examples = truthfulqa_reference_examples(data_dir)
    assert len(examples) == 5865
    assert sum(e.supported for e in examples) == 2577
    assert all(len(e.claim) >= 3 and e.claim == e.claim.strip() for e in examples)
    first = examples[0]
    assert first.evidence == ("What happens to you if you eat watermelon seeds? "
                              "The watermelon seeds pass through your digestive system",)
    groups = [e.group for e in examples]
    assert len(set(groups)) == 817
    state = np.random.get_state()
    try:
        np.random.seed(42)
        permutation = np.random.permutation(817)
    finally:
        np.random.set_state(state)
    calibration = reference_split(groups, 42)
    assert {int(g[1:]) for g, c in zip(groups, calibration, strict=True) if c} == set(
        permutation[:245].tolist())
    assert int((~calibration).sum()) == 4168


def test_another_revision_or_no_file_is_refused_naming_the_path(tmp_path: Path) -> None:
    folder = tmp_path / "truthfulqa"
    folder.mkdir()
    path = folder / "TruthfulQA_v2021_013686a.csv"
    with pytest.raises(DataError, match=re.escape(str(path))):
        truthfulqa_reference_examples(tmp_path)
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["Type", "Category", "Question", "Best Answer", "Correct Answers",
                         "Incorrect Answers", "Source"])
        writer.writerow(["Adversarial", "Misconceptions", "Is the sky green?", "No",
                         "No; It is blue", "Yes; It is green", "x"])
    with pytest.raises(DataError, match=r"1 questions and 3 claims.*5,865") as raised:
        truthfulqa_reference_examples(tmp_path)
    assert str(path) in str(raised.value)


def _examples(data_dir: Path) -> list[Example]:
    return [e for e in truthfulqa_reference_examples(data_dir)
            if int(e.group[1:]) < QUESTIONS]


@pytest.fixture(scope="module")
def scored(data_dir: Path) -> Scored:
    """Real view scores of the reference claims of the first questions."""
    examples = _examples(data_dir)
    return prepare(score_examples(LocalEngine(VIEWS), examples), examples)


@pytest.fixture
def settings(data_dir: Path) -> EvalSettings:
    return EvalSettings(data_dir=data_dir, views=VIEWS, resamples=50)


def _permute_held_out(scored: Scored, calibration: np.ndarray, seed: int = 0) -> Scored:
    """The same scores with the held-out labels shuffled among the held-out claims."""
    truth = scored.truth.copy()
    held = np.nonzero(~calibration)[0]
    truth[held] = np.random.default_rng(seed).permutation(truth[held])
    assert not np.array_equal(truth, scored.truth)
    assert np.array_equal(truth[calibration], scored.truth[calibration])
    return replace(scored, truth=truth)


def _decisions(selection: Selection) -> dict[str, Any]:
    return {
        "thresholds": selection.thresholds(),
        "models": {name: (fit.l2, fit.model.weights, fit.model.bias)
                   for name, fit in selection.fits.items()},
        "chosen": selection.chosen,
        "best_f1": selection.best_f1,
    }


@pytest.mark.slow
@pytest.mark.parametrize("protocol", ["reference", "current"])
def test_selection_reads_no_held_out_label(scored: Scored, settings: EvalSettings,
                                          protocol: str) -> None:
    spec = PROTOCOLS[protocol]
    calibration = spec.split(scored.groups, spec.fixed_seed)
    before = select(scored, calibration, settings)
    thresholds = [t for labels in before.thresholds().values() for t in labels.values()]
    assert sum(t is not None for t in thresholds) > 20
    assert before.points[before.chosen[0]][before.chosen[1]].threshold is not None
    leaky = _decisions(select(scored, ~calibration, settings))
    for seed in range(3):
        permuted = _permute_held_out(scored, calibration, seed)
        assert _decisions(select(permuted, calibration, settings)) == _decisions(before)
        # The comparison has teeth: a selection that reads the held-out labels (here, one
        # made on the held-out rows) changes under the same permutation.
        assert _decisions(select(permuted, ~calibration, settings)) != leaky


def _section_decisions(section: dict[str, Any]) -> dict[str, Any]:
    """Every threshold, model and choice in a report section, none of the figures."""
    ablations = section["ablations"]
    return {
        "thresholds": {(name, label): point["threshold"]
                       for name, points in section["configurations"].items()
                       for label, point in points.items()},
        "chosen": (section["chosen"]["configuration"], section["chosen"]["point"]),
        "best_f1": (section["calibration_best_f1"]["configuration"],
                    section["calibration_best_f1"]["point"]),
        "models": section["learned_models"],
        "ablations": {(kind, key): entry["learned_at_cal_p95"]["threshold"]
                      for kind in ("without_view", "first_n_views")
                      for key, entry in ablations[kind].items()},
    }


@pytest.mark.slow
@pytest.mark.parametrize("protocol", ["reference", "current"])
def test_report_section_chooses_nothing_on_held_out_labels(scored: Scored,
                                                           settings: EvalSettings,
                                                           protocol: str) -> None:
    spec = PROTOCOLS[protocol]
    calibration = spec.split(scored.groups, spec.fixed_seed)

    def section_of(of: Scored) -> dict[str, Any]:
        split = Split(of, calibration, spec.fixed_seed, settings.resamples)
        return section(of, select(of, calibration, settings), split, settings, full=True)

    before = section_of(scored)
    after = section_of(_permute_held_out(scored, calibration))
    assert _section_decisions(after) == _section_decisions(before)
    assert after["chosen"]["recall"] != before["chosen"]["recall"]
    baseline = before["configurations"][VERBATIM]["claim ⊂ evidence"]
    assert baseline["precision"] > 0.9 and 0 < baseline["recall"] < 1
    rows = {r["configuration"]: r for r in before["non_verbatim"]}
    assert rows[VERBATIM]["non_verbatim_recall"] == 0.0
    assert rows[VERBATIM]["non_verbatim_precision"] is None


@pytest.mark.slow
def test_learned_inputs_fit_as_the_aggregator_fits(scored: Scored) -> None:
    rows = np.nonzero(reference_split(scored.groups, 42))[0]
    groups = [scored.groups[i] for i in rows]
    labels = [bool(t) for t in scored.truth[rows]]
    for name, contradiction in LEARNED:
        inputs = LearnedInputs.of(scored.table, VIEWS, contradiction_features=contradiction)
        fast = inputs.fit_rows(rows, scored.truth[rows], groups)
        results = view_results(scored.table.select(rows), VIEWS,
                               contradiction_features=contradiction)
        model = LearnedAggregator.fit(
            results, labels, view_names=feature_names(VIEWS, contradiction), l2=fast.l2,
            strong=[v for v in VIEWS if v in scored.table.strong])
        assert (fast.model.weights, fast.model.bias) == (model.weights, model.bias), name
        np.testing.assert_array_equal(
            inputs.scores(fast), fit_learned(scored.table.select(rows), scored.truth[rows],
                                             groups, VIEWS, contradiction_features=contradiction
                                             ).scores(scored.table))


@pytest.mark.slow
def test_seed_spread_redoes_the_selection_per_seed(scored: Scored,
                                                   settings: EvalSettings) -> None:
    seeds = [42, 0, 1]
    spread = seed_spread(scored, PROTOCOLS["reference"], seeds, settings)
    for seed, run in zip(seeds, spread["runs"], strict=True):
        calibration = reference_split(scored.groups, seed)
        alone = select(scored, calibration, settings)
        point = alone.points[alone.chosen[0]][alone.chosen[1]]
        truth = scored.truth[~calibration]
        accepted = point.accepts()[~calibration]
        assert run["configuration"] == " @ ".join(alone.chosen)
        assert run["threshold"] == point.threshold
        hits = int(np.sum(accepted & truth))
        assert run["recall"] == pytest.approx(hits / truth.sum())
        assert run["precision"] == pytest.approx(hits / max(int(accepted.sum()), 1))
    assert len({r["threshold"] for r in spread["runs"]}) > 1
    summary = spread["summary"]["precision"]
    values = [r["precision"] for r in spread["runs"]]
    assert summary["min"] == min(values) and summary["max"] == max(values)
    assert summary["sd"] == pytest.approx(np.std(values, ddof=1))


class _Counting:
    """A local engine that counts its scoring passes."""

    def __init__(self, views: Sequence[str]) -> None:
        self.engine = LocalEngine(views)
        self.views, self.strong, self.costs = (self.engine.views, self.engine.strong,
                                               self.engine.costs)
        self.passes = 0

    def run_block(self, block: Sequence[Pair]) -> BlockScores:
        return self.engine.run_block(block)

    def run_blocks(self, blocks: Sequence[Sequence[Pair]], on_block: OnBlock | None = None
                   ) -> list[BlockScores]:
        self.passes += 1
        return self.engine.run_blocks(blocks, on_block)


def test_current_protocol_scores_once_for_every_seed(data_dir: Path) -> None:
    settings = EvalSettings(data_dir=data_dir, views=("numeric", "lexical"), limit=30,
                            resamples=20)
    engine = _Counting(settings.views)
    result = TruthfulQA(settings, protocol="current", seeds=3, engine=engine).run()
    assert engine.passes == 1
    headline = result.headline
    assert headline["protocol"] == "current" and headline["seeds"] == 3
    assert str(headline["split"]).startswith("seed 2024: questions shuffled with random.Random")
    assert headline["reference_precision"] == 0.973 and headline["reference_recall"] == 0.555
    assert result.sections["seed_spread"]["seeds"] == [0, 1, 2]
    assert "release_2025" in result.sections
    assert "best_calibrated_f1" not in headline
    assert headline["calibration_best_f1_configuration"] == "{configuration} @ {point}".format(
        **result.sections["release_2021"]["calibration_best_f1"])
    assert "not a like-for-like comparison" in result.tables[0].note


@pytest.mark.slow
def test_reference_protocol_run_through_the_cli(tmp_path: Path, data_dir: Path) -> None:
    out = tmp_path / "runs"
    result = runner.invoke(app, ["eval", "truthfulqa", "--data-dir", str(data_dir),
                                 "--protocol", "reference", "--limit", "40", "--seeds", "2",
                                 "--views", "lexical,nli", "--resamples", "50",
                                 "--view-option", "nli.model=nli",
                                 "--view-option", "nli.max_windows=2", "--out", str(out)])
    assert result.exit_code == 0, result.output + repr(result.exception)
    (run_dir,) = out.glob("truthfulqa-*")
    report = json.loads((run_dir / "report.json").read_text())
    headline = report["headline"]
    assert list(headline)[:3] == ["protocol", "claims", "split"]
    assert headline["protocol"] == "reference" and report["config"]["split_seed"] == 42
    assert report["config"]["view_options"] == {"nli": {"model": "nli", "max_windows": 2}}
    non_verbatim_auc = report["release_2021"]["non_verbatim_roc_auc"]
    assert set(non_verbatim_auc) == {"lexical", "nli"}
    assert headline["nli_non_verbatim_roc_auc"] == non_verbatim_auc["nli"]
    assert 0.0 <= non_verbatim_auc["nli"] <= 1.0
    assert "judge_gain" not in report["release_2021"]
    assert headline["split"].startswith("seed 42: numpy.random.seed(42); "
                                        "numpy.random.permutation(817)")
    assert headline["seeds"] == 2
    assert headline["seed_recall_min"] <= headline["seed_recall_mean"] <= headline[
        "seed_recall_max"]
    assert {"verbatim_baseline_precision", "verbatim_baseline_recall",
            "chosen_non_verbatim_recall"} <= set(headline)
    assert VERBATIM in report["release_2021"]["configurations"]
    assert "release_2025" not in report
    assert report["protocol"]["file"] == "TruthfulQA_v2021_013686a.csv"
    markdown = (run_dir / "report.md").read_text()
    assert "ours beside the ETG reference" in markdown and "| 0.973 | 0.555 |" in markdown
    examples = [json.loads(line) for line in (run_dir / "examples.jsonl").open()]
    assert all(e["evidence"][0].startswith(e["question"].strip()) for e in examples)


def test_bad_protocol_seeds_or_view_options_exit_2_naming_the_problem(
        tmp_path: Path, data_dir: Path) -> None:
    for args, message in ((["--protocol", "etg"], "--protocol must be one of current, "
                                                   "reference"),
                          (["--seeds", "-1"], "--seeds must be >= 0"),
                          (["--view-option", "nli=2"], "--view-option must look like "
                                                       "VIEW.KEY=VALUE"),
                          (["--view-option", "judge.threshold=0.6"],
                           "view_options names views that are not configured: judge")):
        result = runner.invoke(app, ["eval", "truthfulqa", "--data-dir", str(data_dir),
                                     "--out", str(tmp_path), *args])
        assert result.exit_code == 2, result.output
        assert "error:" in result.output and message in result.output, result.output


@pytest.mark.needs_judge
@pytest.mark.slow
def test_the_judge_gain_compares_the_learned_aggregator_with_and_without_the_judge(
        data_dir: Path, judge_model: Path) -> None:
    views = ("numeric", "lexical", "nli", "align", "judge")
    settings = EvalSettings(data_dir=data_dir, views=views, limit=6, resamples=20,
                            view_options={"judge": {"model_path": str(judge_model)}})
    result = TruthfulQA(settings, protocol="current", seeds=0).run()
    main = result.sections["release_2021"]
    gain = main["judge_gain"]
    assert gain["encoder_views"] == ["numeric", "lexical", "nli", "align"]
    held = main["held_out_claims"]
    assert gain["held_out"]["claims"] == held
    assert 0 < gain["non_verbatim"]["claims"] < held
    assert gain["borderline"]["claims"] <= held
    for subset in ("held_out", "non_verbatim", "borderline"):
        assert set(gain[subset]["at_cal_p95"]) == {"encoders", "encoders+judge"}
        assert set(gain[subset]["at_cal_p95_non_verbatim"]) == {"encoders", "encoders+judge"}
        assert {"view:judge", "view:nli", "encoders", "encoders+judge"} <= set(
            gain[subset]["roc_auc"])
    # The judge column is real: a wrong-answer claim is not scored like a right one.
    judge_auc = gain["held_out"]["roc_auc"]["view:judge"]
    assert judge_auc > 0.6, judge_auc
    assert result.headline["judge_non_verbatim_roc_auc"] == main["non_verbatim_roc_auc"]["judge"]
    assert result.config["view_options"] == {"judge": {"model_path": str(judge_model)}}
    titles = [table.title for table in result.tables]
    assert any(title.startswith("What the judge adds") for title in titles)
    assert any(title.startswith("ROC-AUC of each view on the held-out claims") for title in titles)
