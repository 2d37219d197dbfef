"""Write the Evaluation results page, ``docs/results.md``, from the result files.

``python docs/benchmarks_page.py`` calls :func:`render` and writes this page beside the
Benchmarks page. Each ``veritype eval`` run's headline figures come from its
``benchmarks/results/eval_<name>.json`` (written by ``benchmarks/eval_results.py``, which
also copies the run's full report and plots into ``docs/results/``); truth-aware decoding
comes from ``benchmarks/results/tad.json``. The prose holds no number of its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks_page import (
    THIS,
    Page,
    count,
    f3,
    label,
    pct,
    table,
    with_ci,
)

DOCS = Path(__file__).resolve().parent

# (result file, heading, what the run measures: prose without numbers)
GOLD = (
    ("eval_corpus-qa.json", "Questions over a corpus of similar paragraphs (`corpus-qa`)",
     "The knowledge paragraphs of HaluEval-QA's evaluation rows become one corpus of many "
     "similar paragraphs, and a seeded sample of those rows' questions is asked through "
     "`Engine.ask`. The raw draft is what the generator wrote before verification; the "
     "rendered answer is what veritype shows. Selective accuracy at a coverage is the "
     "accuracy of the answers the engine is most sure of; the baseline ranks drafts by "
     "retrieval similarity and needs no verifier."),
    ("eval_corpus-qa-local.json", "The same corpus with `SmolLM2-135M` drafts",
     "The same questions and corpus, drafted by the small local model."),
    ("eval_truthfulqa-gen.json",
     "TruthfulQA generation, judged by TruthfulQA's own metric (`truthfulqa-gen`)",
     "TruthfulQA questions are answered from the Best Answers, which are the corpus, and "
     "judged by the ROUGE-L metric of the TruthfulQA paper "
     "([arXiv](https://arxiv.org/abs/2109.07958)). A refusal counts as truthful there."),
)
LABELS = (
    ("eval_truthfulqa-reference.json", "TruthfulQA, the reference protocol",
     "The ETG reference's setting reproduced: its file, claim split and calibration split. "
     "The verbatim substring (the claim occurs in its evidence) is a baseline of its own, "
     "because many true claims repeat their evidence; recall is also given on the claims "
     "that do not. The seed spread redoes the whole selection on other splits."),
    ("eval_truthfulqa.json", "TruthfulQA, the current protocol",
     "The later TruthfulQA file with the Best Answer as evidence and a seeded split by "
     "question."),
    ("eval_truthfulqa-nli-large.json", "TruthfulQA with the MPNet retrain as `nli`",
     "The current protocol with a larger retrained encoder in place of the shipped `nli`."),
    ("eval_truthfulqa-judge.json", "TruthfulQA with the judge",
     "The current protocol on a limited set of questions with the LLM judge among the views."),
    ("eval_halueval.json", "HaluEval hallucination detection",
     "Each HaluEval task's responses are detected as hallucinated or not. Thresholds, the "
     "learned aggregator and the chosen configuration come from calibration rows; the "
     "configuration's description names any model trained on the task's rows."),
    ("eval_scifact.json", "SciFact end to end",
     "SciFact dev claims are verified against retrieved abstracts: retrieve, verify, cite, and "
     "label each claim SUPPORT, CONTRADICT or not enough information."),
    ("eval_nli.json", "NLI evaluation sets",
     "Every NLI evaluation set, each view read as a three-way classifier."),
)
SELF = (
    ("eval_e2e.json", "Self-consistency: generation judged by veritype's own models (`e2e`)",
     "Drafts are split into claims and each claim is judged against the reference answers by "
     "the shipped `nli` and `align` models: the same models that chose the rendered claims, "
     "so the figures lean in veritype's favour. They are not independent, and no headline "
     "uses them."),
)
FILES = (*(name for group in (GOLD, LABELS, SELF) for name, _, _ in group), "tad.json")


def _value(value: Any) -> str:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return "–" if value is None else str(value)
    if isinstance(value, int):
        return count(value)
    return f3(value) if abs(value) < 100 else f"{value:,.1f}"


def headline_rows(headline: dict[str, Any]) -> list[list[str]]:
    """Each headline figure with its interval (``key_ci_low``, ``key_ci_high``) beside it."""
    rows = []
    for key, value in headline.items():
        if key.endswith(("_ci_low", "_ci_high")):
            continue
        if f"{key}_ci_low" in headline and isinstance(value, float):
            shown = with_ci(value, [headline[f"{key}_ci_low"], headline[f"{key}_ci_high"]])
        else:
            shown = _value(value)
        rows.append([label(key), shown])
    return rows


def per_task_rows(headline: dict[str, Any], tasks: list[str]) -> list[list[str]]:
    """HaluEval's headline, ``<task>_<figure>`` keys, as one row per figure."""
    figures = list(dict.fromkeys(key.removeprefix(f"{task}_") for task in tasks
                                 for key in headline if key.startswith(f"{task}_")))
    rows = []
    for figure in figures:
        if figure.endswith(("_ci_low", "_ci_high")):
            continue
        cells = []
        for task in tasks:
            key = f"{task}_{figure}"
            value = headline.get(key)
            if f"{key}_ci_low" in headline and isinstance(value, float):
                cells.append(with_ci(value, [headline[f"{key}_ci_low"],
                                             headline[f"{key}_ci_high"]]))
            else:
                cells.append(_value(value))
        rows.append([label(figure), *cells])
    return rows


def command(data: dict[str, Any]) -> str:
    """The ``veritype eval`` command the run's config records."""
    config = data["config"]
    parts = [f"veritype eval {data['benchmark']} --data-dir DATA_DIR"]
    for key, flag in (("protocol", "--protocol"), ("generator", "--generator"),
                      ("limit", "--limit")):
        if config.get(key) not in (None, "current"):
            parts.append(f"{flag} {config[key]}")
    if data["benchmark"] not in ("corpus-qa", "truthfulqa-gen", "e2e") and config.get("views"):
        parts.append(f"--views {','.join(config['views'])}")
    seeds = data.get("headline", {}).get("seeds")
    if seeds:
        parts.append(f"--seeds {seeds}")
    return " ".join(parts)


def eval_section(page: Page, name: str, heading: str, about: str) -> None:
    data = page.load(name)
    report = name.removeprefix("eval_").removesuffix(".json")
    page.add(f"### {heading}", "")
    page.prose(about)
    if isinstance(data["config"].get("judge"), str):
        page.add(f"Judged by: {data['config']['judge']}", "")
    page.source(name, command(data), data)
    det = data["determinism"]
    page.add(f"Run `{data['run_directory']}`; the `{det['model']}` scores repeated exactly: "
             f"{'yes' if det['deterministic'] else 'no'} (largest difference "
             f"{det['max_abs_difference']}). Full report with every table: "
             f"[{report}](results/{report}.md).", "")
    tasks = data["config"].get("tasks")
    if tasks:
        page.add(*table(["figure", *tasks], per_task_rows(data["headline"], tasks)))
    else:
        page.add(*table(["figure", "value"], headline_rows(data["headline"])))
    for note in data.get("notes") or []:
        page.add(f"- {note}")
    if data.get("notes"):
        page.add("")
    for image in data["images"]:
        path = f"results/{report}-{image}"
        if (DOCS / path).is_file():
            page.add(f"![{report}: {label(image.removesuffix('.png'))}]({path})", "")


def tad(page: Page) -> None:
    data = page.load("tad.json")
    page.add("## Truth-aware decoding, open world", "")
    page.prose("`benchmarks/tad.py` runs prompts on a small local model with the guards off "
               "and on and scores each answer's first clause against gold answers. Open-world "
               "sets hold facts the knowledge base does not hold (absent ones, relations in "
               "other words, facts retrieved from the demo corpus); the closed-world sets are "
               "a sanity check whose facts the guard holds by construction. With guards on, "
               "an answer is guarded (a guard checked its key clause), unverified (none "
               "could) or abstained. Intervals are Wilson intervals.")
    page.source("tad.json", "python benchmarks/tad.py", data)
    rows = []
    for run in ("off", "on", "on_no_retry"):
        for name, r in data["table"][run].items():
            rows.append([label(name), label(run), r["prompts"],
                         with_ci(r["hallucination_rate"], r["hallucination_rate_ci95"], pct),
                         with_ci(r["hallucination_among_guarded"],
                                 r["hallucination_among_guarded_ci95"], pct),
                         with_ci(r["guarded_rate"], r["guarded_rate_ci95"], pct),
                         with_ci(r["unverified_rate"], r["unverified_rate_ci95"], pct),
                         with_ci(r["abstention_rate"], r["abstention_rate_ci95"], pct)])
    page.add(*table(["set", "guards", "prompts", "wrong", "wrong among guarded", "guarded",
                     "unverified", "abstained"], rows))
    h = data["headline"]
    page.add(*table(["open world", "value"], [
        [label(k), pct(v) if isinstance(v, float) else _value(v)]
        for k, v in h.items() if not isinstance(v, dict | list) and v is not None]))
    for run, speed in h["speed"].items():
        page.add(*table([f"speed, {label(run)} against guards off", "value"],
                        [[label(k), with_ci(v, speed.get(f"{k}_ci95"), pct)]
                         for k, v in speed.items() if not k.endswith("_ci95")]))
    if data.get("notes"):
        page.add(f"Notes recorded with the run: {data['notes']}", "")


def render(results: Path) -> str:
    """The Evaluation results page's Markdown, read from the files in ``results``."""
    page = Page(results)
    page.add("## Answers judged by gold data", "")
    for entry in GOLD:
        eval_section(page, *entry)
    page.add("## Claim verification against labels", "")
    for entry in LABELS:
        eval_section(page, *entry)
    tad(page)
    page.add("## Self-consistency", "")
    for entry in SELF:
        eval_section(page, *entry)
    page.add("## Human evaluation", "")
    page.prose("`veritype eval export RUN_DIR -o annotate.csv` writes shuffled claims with "
               "their evidence, a one-paragraph guide, and no gold labels or verdicts (those go "
               "to `annotate.key.jsonl`). `veritype eval kappa rater1.csv rater2.csv` gives "
               "Fleiss' kappa over the items every annotator labelled. No annotation round has "
               "been run yet.")
    intro = f"""# Evaluation results

<!-- written by {THIS} from benchmarks/results/eval_*.json and tad.json: do not edit by hand -->

Every `veritype eval` run's headline figures, read from the result file
`python benchmarks/eval_results.py RUN_DIR…` copies from the run's `report.json` into
`benchmarks/results/eval_<name>.json`; the run's full `report.md` and plots are copied into
`docs/results/` and linked from each section. `python {THIS}` rewrites this
page and the [Benchmarks](benchmarks.md) page from the result files; a test fails while the
committed page differs from what it writes. No result file is edited by hand.

Two kinds of judge appear, and they are never mixed in a headline:

- **Independent**: gold answers, the benchmark's own metric or human labels.
- **Self-consistency**: veritype's own models judging veritype's output (`veritype eval e2e`),
  reported last and never as a headline.

Every headline has its trivial baseline beside it (accept everything, the majority class, the
verbatim-substring check or the unverified draft) and its spread: 95% bootstrap intervals
over questions, rows or claims, and for TruthfulQA the spread over split seeds. Thresholds,
aggregators and "best" configurations are chosen on calibration data only. Each section names
the machine its file records. Published figures that are cited (the ETG reference's
precision and recall on TruthfulQA) are the ones the run records beside its own.
"""
    return intro + "\n" + "\n".join(page.lines).rstrip("\n") + "\n"
