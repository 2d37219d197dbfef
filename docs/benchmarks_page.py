"""Write the Benchmarks page, ``docs/benchmarks.md``, and its plots from the result files.

    python docs/benchmarks_page.py            # the pages and the plots (needs matplotlib)
    python docs/benchmarks_page.py --no-plots # the pages alone (core install)

It writes ``docs/results.md`` (the Evaluation results page, ``docs/results_page.py``) too.

Every figure on the page is read from ``benchmarks/results/*.json`` (the files the benchmark
scripts and ``benchmarks/eval_results.py`` write); the prose beside the figures holds no
number of its own. Rerun this after a benchmark writes a new result file;
``tests/test_benchmarks_page.py`` fails while the committed page differs from what this
writes. The plots go to ``docs/img/benchmarks/`` and are committed, so building the site
needs no matplotlib.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import textwrap
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
PAGE = ROOT / "docs" / "benchmarks.md"
RESULTS_PAGE = ROOT / "docs" / "results.md"
IMAGES = ROOT / "docs" / "img" / "benchmarks"
IMAGE_LINK = "img/benchmarks"
THIS = "docs/benchmarks_page.py"
WIDTH = 95  # prose is wrapped as the hand-written pages are
# The candidate's result files were written by the same scripts while its aggregator.json
# was the shipped one (src/veritype/models/aggregator/).
CANDIDATE_RUN = " --output benchmarks/results/{name}  # candidate's aggregator.json shipped"


# --- numbers as text -------------------------------------------------------------------


def f3(value: float | None) -> str:
    """A share or score to three decimals; a dash when not measured."""
    return "–" if value is None else f"{value:.3f}"


def f2(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def f1(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}"


def pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def count(value: float) -> str:
    """A count with thousands grouped: 4,000."""
    return f"{value:,.0f}"


def ci(bounds: Sequence[float] | None, fmt: Callable[[float | None], str] = f3) -> str:
    """A 95% interval as ``[low, high]``; empty when the file has none."""
    if not bounds:
        return ""
    return f"[{fmt(bounds[0])}, {fmt(bounds[1])}]"


def with_ci(value: float | None, bounds: Sequence[float] | None,
            fmt: Callable[[float | None], str] = f3) -> str:
    interval = ci(bounds, fmt)
    return f"{fmt(value)} {interval}" if interval else fmt(value)


def headline_ci(headline: dict[str, Any], key: str) -> str:
    """An eval headline's ``key`` with its ``key_ci_low`` and ``key_ci_high``."""
    return with_ci(headline[key], [headline[f"{key}_ci_low"], headline[f"{key}_ci_high"]])


def hits(record: dict[str, Any]) -> str:
    """``{hits, of, share, wilson95}`` as ``58/65 = 0.892 [0.794, 0.947]``."""
    return f"{record['hits']}/{record['of']} = {with_ci(record['share'], record.get('wilson95'))}"


def seconds(value: float) -> str:
    return f"{value:.2f} s" if value < 10 else f"{value:.1f} s"


def ms(value: float) -> str:
    return f"{value:.1f} ms"


def gain(value: float) -> str:
    return f"{value:+.3f}"


def label(key: str) -> str:
    """A JSON key as words: ``shortened_copy`` -> ``shortened copy``."""
    return key.replace("_", " ")


# --- Markdown ----------------------------------------------------------------------------


def cell(value: object) -> str:
    """One table cell: booleans as yes/no, a mapping as its items."""
    if isinstance(value, bool):
        value = "yes" if value else "no"
    elif isinstance(value, dict):
        value = ", ".join(f"{label(str(k))} {cell(v)}" for k, v in value.items())
    return " ".join(str(value).split()).replace("|", "\\|")


def table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> list[str]:
    lines = ["| " + " | ".join(cell(h) for h in header) + " |",
             "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return [*lines, ""]


def machine(record: dict[str, Any]) -> str:
    """The machine a result file records, in words: CPU, cores, Python and libraries."""
    found = dict(record.get("machine") or {})
    for key in ("cpu", "cpu_count", "cpus", "python", "load_average_1m_before"):
        if key in record and key not in found:
            found[key] = record[key]
    parts: list[str] = []
    cpu = found.get("cpu")
    if isinstance(cpu, dict):
        flags = [name.upper() if cpu.get(key) else f"no {name.upper()}"
                 for key, name in (("avx2", "avx2"), ("avx512", "avx-512"), ("vnni", "vnni"))
                 if key in cpu]
        parts.append(" ".join([cpu.get("model", "CPU")] + ([f"({', '.join(flags)})"]
                                                            if flags else [])))
    elif isinstance(cpu, str):
        parts.append(cpu)
    for key in ("cpu_count", "cpus", "cores", "cpus_available"):
        if key in found:
            parts.append(f"{found[key]} cores")
            break
    if "platform" in found:
        parts.append(found["platform"])
    if "python" in found:
        parts.append(f"Python {found['python']}")
    libraries = dict(found.get("libraries") or {})
    for key in ("numpy", "omp_wait_policy"):
        if key in found:
            libraries[key] = found[key]
    libraries.update(record.get("versions") or {})
    if libraries:
        parts.append(", ".join(f"{name} {version}" for name, version in libraries.items()))
    if "load_average_1m_before" in found:
        parts.append(f"load average {found['load_average_1m_before']:.2f} before the run")
    when = record.get("created_at")
    return "; ".join(parts) + (f"; run {when[:10]}" if when else "")


# --- the page ---------------------------------------------------------------------------


def slug(title: str) -> str:
    """The anchor MkDocs (and GitHub) give a heading: lower case, words joined by hyphens."""
    kept = re.sub(r"[^\w\s-]", "", title.lower())
    return re.sub(r"[\s]+", "-", kept.strip())



@dataclass
class Page:
    """The page being written: its lines, the summary rows and the files it read."""

    results: Path
    lines: list[str] = field(default_factory=list)
    summary: list[tuple[str, str, str]] = field(default_factory=list)
    read: dict[str, int] = field(default_factory=dict)  # file -> line at its first read
    headings: dict[str, str] = field(default_factory=dict)  # anchor -> heading
    heading_lines: list[tuple[int, str]] = field(default_factory=list)  # (line, anchor)

    def load(self, name: str) -> dict[str, Any]:
        if name not in FILES:
            raise KeyError(f"{name} is not in FILES; add it there")
        path = self.results / name
        if not path.is_file():
            raise FileNotFoundError(f"{path}: the Benchmarks page reads it; rerun its benchmark")
        if name not in self.read:
            self.read[name] = len(self.lines)
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return data

    def add(self, *lines: str) -> None:
        for line in lines:
            if line.startswith("#"):
                title = line.lstrip("#").strip()
                self.headings[slug(title)] = title
                self.heading_lines.append((len(self.lines), slug(title)))
            self.lines.append(line)

    def section_of(self, name: str) -> str:
        """The anchor of the section that shows ``name``: the heading at or before the line
        where the file was first read (a section reads its files before its heading too)."""
        return [anchor for line, anchor in self.heading_lines if line <= self.read[name]][-1]

    def prose(self, text: str) -> None:
        """A paragraph of prose with no figure typed by hand: no number outside `code` (a
        digit may only continue a name, as in BM25, or sit in a link's address)."""
        words = re.sub(r"`[^`]*`|\]\([^)]*\)", "", text)
        if re.search(r"(?<![A-Za-z\d])\d", words):
            raise ValueError(f"a figure typed in prose: {text!r}")
        self.lines += [textwrap.fill(text, WIDTH, break_long_words=False,
                                     break_on_hyphens=False), ""]

    def source(self, name: str, command: str | None, record: dict[str, Any]) -> None:
        """The command, the result file and the machine it records."""
        run = f"`{command}` → " if command else ""
        self.lines += [f"{run}`benchmarks/results/{name}`. Machine: {machine(record)}.", ""]

    def plot(self, name: str, alt: str) -> None:
        self.lines += [f"![{alt}]({IMAGE_LINK}/{name}.png)", ""]

    def headline(self, what: str, value: str, anchor: str) -> None:
        self.summary.append((what, value, anchor))


# --- sections: first contact and asking --------------------------------------------------


def first_run(page: Page) -> None:
    data = page.load("first_run.json")
    page.add("## First run", "")
    page.prose("The first `veritype ask` of the quick start on a new install ingests the demo "
               "corpus, reading the shipped vectors of its chunks "
               "(`veritype.ingest.demo`), and derives the fused embedder; later runs reuse "
               "both. Each run must "
               "print a cited answer.")
    page.source("first_run.json", f"python benchmarks/first_run.py  # runs {data['command']}",
                data)
    targets = data["targets"]
    page.add(*table(["", "seconds", "target"], [
        ["install (core extras)", f1(data["install_seconds"]), ""],
        ["first run", f1(data["first_run_seconds"]), f"≤ {targets['first_run_seconds']}"],
        ["later run", f2(data["later_run_seconds"]), f"≤ {targets['later_run_seconds']}"],
    ]))
    page.add(*table(["run", "seconds", "exit code", "cited answer"],
                    [[r["run"], f2(r["seconds"]), r["exit_code"], r["cited_answer"]]
                     for r in data["runs"]]))
    page.headline("First `veritype ask` (ingest and model derivation included)",
                  f"{f1(data['first_run_seconds'])} s; later runs "
                  f"{f2(data['later_run_seconds'])} s",
                  "first-run")


def ask_latency(page: Page) -> None:
    page.add("## Asking questions", "", "### Latency", "")
    data = page.load("ask.json")
    page.prose("Latency of `Engine.ask` on the bundled demo corpus per generator, with the mean "
               "time of each stage. A structural check, `confabulation_problems`, confirms that "
               "every rendered claim is Verified and cited to a valid span; it is not a "
               "factuality result.")
    page.source("ask.json", "python benchmarks/ask.py", data)
    page.add(f"Corpus: {data['corpus']}; queries: {data['queries']}; views: "
             f"{', '.join(data['views'])}; ingest {seconds(data['ingest_s'])}.", "")
    rows = []
    for r in data["results"]:
        rows.append([r["generator"], r["queries"], seconds(r["p50_s"]), seconds(r["p95_s"]),
                     f"≤ {r['target_p50_s']} s", r["abstained"], r["claims"],
                     r["rendered_claims"], ", ".join(f"{k} {v}" for k, v in
                                                     sorted(r["confidence"].items())),
                     len(r["confabulation_problems"])])
    page.add(*table(["generator", "questions", "p50", "p95", "p50 target", "abstained",
                     "claims", "rendered claims", "confidence labels",
                     "confabulation problems"], rows))
    stages = list(data["results"][0]["stage_mean_s"])
    page.add(*table(["stage (mean s)"] + [r["generator"] for r in data["results"]],
                    [[label(s.removesuffix("_s"))] + [f"{r['stage_mean_s'][s]:.3f}"
                                                      for r in data["results"]]
                     for s in stages]))
    page.plot("ask_stages", "Mean time per stage of an ask, per generator")
    for r in data["results"]:
        page.headline(f"`ask` latency, {r['generator']} generator, demo corpus",
                      f"p50 {seconds(r['p50_s'])}, p95 {seconds(r['p95_s'])}", "latency")


def corpus_qa(page: Page) -> None:
    page.add("### Answers over a corpus", "")
    page.prose("`veritype eval corpus-qa` asks HaluEval-QA questions over one corpus made of "
               "many similar knowledge paragraphs and judges every answer by the row's gold "
               "answer. The unverified draft is the baseline; the rendered answer is what "
               "veritype shows, and abstentions count apart.")
    rows = []
    for name in ("eval_corpus-qa.json", "eval_corpus-qa-local.json"):
        data = page.load(name)
        h = data["headline"]
        rows.append([
            f"`{name}`", h["generator"], h["questions"],
            with_ci(h["draft_accuracy_answered"], [h["draft_accuracy_answered_ci_low"],
                                                   h["draft_accuracy_answered_ci_high"]]),
            f3(h["rendered_coverage"]),
            with_ci(h["rendered_accuracy_answered"], [h["rendered_accuracy_answered_ci_low"],
                                                      h["rendered_accuracy_answered_ci_high"]]),
            h["rendered_selective_accuracy_at_0.5"] if isinstance(
                h["rendered_selective_accuracy_at_0.5"], str)
            else f3(h["rendered_selective_accuracy_at_0.5"]),
            f3(h["rendered_wrong_other_source"]),
        ])
        page.headline(f"Answers over a corpus of similar paragraphs ({h['generator']} drafts)",
                      f"right {f3(h['rendered_accuracy_answered'])} at coverage "
                      f"{f3(h['rendered_coverage'])}; drafts {f3(h['draft_accuracy_answered'])}",
                      "answers-over-a-corpus")
    page.add("`veritype eval corpus-qa --data-dir DATA_DIR [--generator local]` → "
             "`python benchmarks/eval_results.py RUN_DIR` → the files below; full reports: "
             "[corpus-qa](results/corpus-qa.md), [corpus-qa-local](results/corpus-qa-local.md). "
             f"Machine: {machine(page.load('eval_corpus-qa.json'))}.", "")
    page.add(*table(["file", "generator", "questions", "drafts right (baseline)",
                     "rendered coverage", "rendered right", "right at coverage 0.5",
                     "wrong-paragraph answers"], rows))

    page.add("#### veritype's own small corpora", "")
    page.prose("`benchmarks/ask_corpora.py` asks the questions written for the e-bike, bridge "
               "and scientist corpora of `tests/data/corpora`, with extractive drafts. An "
               "unanswerable question is right when the engine abstains. The baseline file "
               "is an earlier run with other views and without the answer model, kept as the "
               "reference point.")
    for name, command in (("ask_corpora.json", "python benchmarks/ask_corpora.py"),
                          ("ask_corpora_baseline.json", None)):
        data = page.load(name)
        page.source(name, command, data)
        config = data["config"]
        page.add(f"Generator {config['generator']}, views {', '.join(config['views'])}, answer "
                 f"model {config.get('answer_model', 'none')}; p50 `ask` "
                 f"{seconds(data['overall']['p50_ask_s'])}.", "")
        kinds = data["overall"]["by_kind"]
        labels = data["overall"]["answered_by_label"]
        page.add(*table(["", "questions or answers", "right"],
                        [[f"{label(k)} questions", v["questions"], f3(v["right"])]
                         for k, v in kinds.items()]
                        + [[f"answered at \"{label(k)}\"", v["answered"], f3(v["right"])]
                           for k, v in labels.items()]))
    own = page.load("ask_corpora.json")["overall"]["by_kind"]
    page.headline("Own corpora: answerable questions right",
                  f"{f3(own['answerable']['right'])} of {own['answerable']['questions']} "
                  "questions",
                  "answers-over-a-corpus")


def answer_corpora(page: Page) -> None:
    page.add("### Questions over documents written elsewhere", "")
    page.prose("`benchmarks/data/answer_corpora/` holds small corpora from several domains "
               "with questions written before any code was changed: answerable ones, "
               "comparisons and unanswerable ones, judged by gold strings. They are split by "
               "corpus into a calibration half, used for decisions, and an evaluation half, "
               "run once per decision. Intervals are Wilson intervals.")
    halves = {}
    for half in ("evaluation", "calibration"):
        name = f"answer_corpora_{half}.json"
        data = page.load(name)
        halves[half] = data["halves"][half]
        page.source(name, f"python benchmarks/answer_corpora.py --half {half}", data)

    def with_model(key: str, option: str, arguments: str) -> str:
        """Load the evaluation half run with a GGUF model as ``option``; the model's name."""
        name = f"answer_corpora_evaluation_{key}.json"
        data = page.load(name)
        halves[key] = data["halves"]["evaluation"]
        model = Path(data["config"]["generator_options"][option]).name
        page.source(name, f"python benchmarks/answer_corpora.py --half evaluation {arguments}"
                    f"--generator-options '{{\"{option}\": \"{model}\"}}'", data)
        return model

    model = with_model("llm", "model_path", "--generator local ")
    reader_model = with_model("reader", "reader_model_path", "")
    split = page.load("answer_corpora_evaluation.json")["split"]
    page.add(f"Corpora: calibration {', '.join(split['calibration'])}; "
             f"evaluation {', '.join(split['evaluation'])}. The third column drafts with the "
             f"local generator on {model} (the judge's model; `ask --model-path`) instead of "
             "the extractive default; the fourth keeps the extractive drafter and has "
             f"{reader_model} read its six best sentences, abstaining when it finds none that "
             "states the answer (`ask --reader-model`); everything else is the same.", "")
    rows = [
        ["answerable: right when shown"] + [hits(h["answerable"]["right_when_shown"])
                                            for h in halves.values()],
        ["answerable: coverage"] + [hits(h["answerable"]["coverage"]) for h in halves.values()],
        ["comparisons right"] + [hits(h["comparative_right"]) for h in halves.values()],
        ["unanswerable: abstained"] + [hits(h["unanswerable_abstained"])
                                       for h in halves.values()],
        ["right overall"] + [hits(h["right_overall"]) for h in halves.values()],
    ]
    for key in ("high", "medium", "low"):
        rows.append([f"shown at \"{key}\": right"]
                    + [hits(h["shown_by_label"][key]) if key in h["shown_by_label"] else "–"
                       for h in halves.values()])
    rows.append(["wrong answers at \"high\""] + [h["wrong_at_high"] for h in halves.values()])
    rows.append(["baseline: BM25's top two sentences hold the gold (answerable)"]
                + [hits(h["baselines"]["bm25_top2_holds_gold"]["answerable"])
                   for h in halves.values()])
    rows.append(["baseline: accept every draft, draft holds the gold (answerable)"]
                + [hits(h["baselines"]["accept_everything"]["answerable"])
                   for h in halves.values()])
    rows.append(["baseline: accept every draft, unanswerable abstained"]
                + [hits(h["baselines"]["accept_everything"]["unanswerable_abstained"])
                   for h in halves.values()])
    rows.append(["p50 / p90 `ask`"] + [f"{seconds(h['p50_ask_s'])} / {seconds(h['p90_ask_s'])}"
                                       for h in halves.values()])
    page.add(*table(["", "evaluation half", "calibration half",
                      "evaluation half, LLM drafter", "evaluation half, LLM reader"], rows))
    page.plot("answer_corpora_labels", "Share of shown answers that are right, per confidence "
              "label and half, with Wilson intervals")
    ev = halves["evaluation"]
    page.headline("Documents written elsewhere (evaluation half): right when shown",
                  f"{hits(ev['answerable']['right_when_shown'])} at coverage "
                  f"{f3(ev['answerable']['coverage']['share'])}",
                  "questions-over-documents-written-elsewhere")


def answer_model_squad2(page: Page) -> None:
    page.add("### The answer model on unanswerable questions that look answerable", "")
    page.prose("`SQuAD 2.0`'s unanswerable questions were written to look answerable from their "
               "paragraph, each with the span a reader is tempted to give: the asked attribute "
               "of a sibling, another attribute of the asked entity. On an article of the "
               "subset that no model here read, the answer model's P(answers) of the "
               "sentences that answer, against that of the tempting sentences, per model, "
               "side by side in one run.")
    data = page.load("answer_model_squad2.json")
    page.source("answer_model_squad2.json",
                "python benchmarks/answer_model_squad2.py --models OLD NEW", data)
    page.add(*table(
        ["model", "ROC-AUC answer vs tempting", "answer sentences P > 0.5",
         "tempting sentences P > 0.5", "best sentence holds the answer"],
        [[f"`{m['label']}`", f3(m["roc_auc_answer_vs_tempting"]),
          f"{f3(m['answer_sentences_above_half'])} of {m['answer_sentences']}",
          f"{f3(m['tempting_sentences_above_half'])} of {m['tempting_sentences']}",
          f"{f3(m['best_sentence_holds_answer'])} of {m['answerable_questions']}"]
         for m in data["models"]]))


# --- sections: checking RAG outputs --------------------------------------------------------


def rag_rows(page: Page) -> None:
    page.add("## Checking files of RAG outputs", "", "### Hand-labelled RAG rows", "")
    page.prose("`benchmarks/data/rag_rows.jsonl` holds RAG rows written for this project and "
               "labelled before the typing changed: faithful ones and unfaithful ones (wrong "
               "numbers, sibling entities, wrong attributions, added details, negations, "
               "overgeneralisations). A bad row is caught when `veritype check` calls it "
               "`unfaithful` or `uncertain`. The candidate is the three-type aggregator of "
               "[its section](#three-types-with-stated-precision-a-candidate-not-the-default).")
    rows = []
    runs = {"default": "", "candidate": CANDIDATE_RUN.format(name="candidate_three_types/"
                                                                "rag_rows.json"),
            "default, with the judge": " --views numeric,nli,judge --output "
                                       "benchmarks/results/rag_rows_judge.json"}
    for name, who in (("rag_rows.json", "default"),
                      ("candidate_three_types/rag_rows.json", "candidate"),
                      ("rag_rows_judge.json", "default, with the judge")):
        data = page.load(name)
        page.source(name, "python benchmarks/rag_rows.py" + runs[who], data)
        rows.append([f"{who}: {', '.join(data['views'])} (τ {data['tau']}, τ' {data['tau_low']})",
                     f"{data['bad_rows_passed']} of {data['bad_rows']}",
                     f"{data['bad_rows_flagged']} ({data['bad_rows_unfaithful']} unfaithful)",
                     f"{data['good_rows_faithful']} of {data['good_rows']}",
                     data["good_rows_uncertain"], data["good_rows_unfaithful"],
                     f"{data['seconds']:.1f} s"])
    page.add(*table(["aggregator", "bad rows passed as faithful", "bad rows caught",
                     "good rows faithful", "good rows uncertain", "good rows unfaithful",
                     "time"], rows))
    page.add(*table(["rows whose verdict the judge changes", "good rows", "bad rows"],
                    _judge_moves(page.load("rag_rows.json"), page.load("rag_rows_judge.json"))))
    data = page.load("rag_rows.json")
    page.headline("Hand-labelled RAG rows: bad rows passed as faithful (default)",
                  f"{data['bad_rows_passed']} of {data['bad_rows']}", "hand-labelled-rag-rows")


def _judge_moves(default: dict[str, Any], judged: dict[str, Any]) -> list[list[Any]]:
    """How many good and bad rows the judge lifts to faithful and sinks from it."""
    before = {row["id"]: row for row in default["outcomes"]}
    moves = {"lifted to faithful": [0, 0], "no longer faithful": [0, 0]}
    for row in judged["outcomes"]:
        was, now = before[row["id"]]["verdict"] == "faithful", row["verdict"] == "faithful"
        if was != now:
            moves["lifted to faithful" if now else "no longer faithful"][
                row["label"] != "faithful"] += 1
    return [[move, good, bad] for move, (good, bad) in moves.items()]


def check_halueval(page: Page) -> None:
    page.add("### HaluEval", "")
    page.prose("`veritype check` reads HaluEval rows as RAG outputs: each row's right answer "
               "and its hallucinated one, with the row's knowledge as the context. Read as a "
               "detector, anything but `faithful` flags a hallucination. The trivial baselines "
               "are accepting everything and the verbatim substring (the answer occurs in the "
               "knowledge). Intervals are bootstrap intervals over rows.")
    rows = []
    speed = []
    for name in ("check_halueval.json", "check_halueval_dialogue.json"):
        data = page.load(name)
        page.source(name, f"python benchmarks/check_halueval.py --data-dir DATA_DIR "
                          f"--task {data['task']} --rows {data['halueval_rows'][0]}:"
                          f"{data['halueval_rows'][1]}", data)
        det = data["detection"]
        check = det["veritype check (faithful = supported)"]
        rows.append([f"{data['task']}, rows {data['halueval_rows'][0]}–"
                     f"{data['halueval_rows'][1] - 1} ({count(data['check_rows'])} check rows)",
                     with_ci(check["balanced_accuracy"], check["ci95"]),
                     f"{pct(check['recall_supported'])} / {pct(check['recall_hallucinated'])}",
                     f3(det["roc_auc"]["lowest claim support"]),
                     with_ci(det["verbatim substring"]["balanced_accuracy"],
                             det["verbatim substring"]["ci95"]),
                     f3(det["accept everything"]["balanced_accuracy"])])
        for engine, run in data["engines"].items():
            speed.append([data["task"], engine, count(run["rows"]), f1(run["wall_seconds"]),
                          f1(run["rows_per_second_in_check"]),
                          data["identical_to_local"].get(engine, "–")])
        page.headline(f"`veritype check` on HaluEval {data['task']}: balanced accuracy",
                      f"{with_ci(check['balanced_accuracy'], check['ci95'])}; verbatim "
                      f"baseline {f3(det['verbatim substring']['balanced_accuracy'])}", "halueval")
    page.add(*table(["rows", "balanced accuracy", "right faithful / hallucinated flagged",
                     "ROC-AUC, lowest claim support", "verbatim substring", "accept everything"],
                    rows))
    page.add(*table(["task", "engine", "rows", "wall s", "rows/s", "identical to local"],
                    speed))
    qa = page.load("check_halueval.json")["judge_cost"]
    page.add(f"A per-claim LLM judge ({qa['model']}) would read {f1(qa['mean_tokens_per_row'])} "
             f"prompt tokens per QA row (mean; median {f1(qa['median_tokens_per_row'])}).", "")
    page.add("![The HTML report of a check of HaluEval-QA rows](img/check_report.png)", "")


def check_options(page: Page) -> None:
    page.add("### Options answered", "")
    page.prose("HaluEval-QA's hallucinated answers are sentences, so its benchmark never checks "
               "a wrong bare option. Each row whose question closes on two options (\u201cWhich "
               "was released first, The True Glory or American Pimp?\u201d) and whose right "
               "answer is one of them gives two check rows: the right option and the other "
               "one, wrong by construction. A check that cannot tell them apart passes as "
               "many of one as of the other.")
    data = page.load("check_options.json")
    page.source("check_options.json", f"python benchmarks/check_options.py --data-dir DATA_DIR "
                f"--rows {data['halueval_rows'][0]}:{data['halueval_rows'][1]}", data)
    runs = {"veritype check": data["veritype_check"], **data["baselines"]}
    page.add(*table(["", "right option faithful", "wrong option flagged", "balanced accuracy"],
                    [[name, pct(run["right_passed"]), pct(run["wrong_flagged"]),
                      f3(run["balanced_accuracy"])] for name, run in runs.items()]))


def check_pool(page: Page) -> None:
    data = page.load("check_pool.json")
    page.add("### Worker processes", "")
    page.prose("`veritype check` on this machine's CPUs: in one process (`--workers 1`), with "
               "a worker process per CPU (`--workers 2`) and with the default, side by side in "
               "each round. Every run's rows must be identical to the in-process run's. The "
               "workers' start (spawn, import, load their models) is timed apart: with the two "
               "rates it gives the rows from which the workers pay for it.")
    page.source("check_pool.json", "python benchmarks/check_pool.py --data-dir DATA_DIR", data)
    page.add(*table(["run", "median wall s", "median rows/s (check's own figure)", "workers",
                     "identical to in process"],
                    [[name, f1(data["median"][name]["wall_seconds"]),
                      f1(data["median"][name]["rows_per_second"]),
                      str(runs[0]["workers"]), str(data["identical_to_in_process"][name])]
                     for name, runs in data["runs"].items()]))
    page.add(f"{count(data['rows'])} check rows, {data['rounds']} rounds; speedup "
             f"{f2(data['speedup'])}×; the workers start in "
             f"{', '.join(seconds(s) for s in data['pool_start_seconds'])}, so they pay from "
             f"about {data['break_even_rows']} rows (a local check starts them from "
             f"{data['pool_from_rows']}).", "")


def answer_relevance(page: Page) -> None:
    data = page.load("answer_relevance.json")
    page.add("### Answer relevance", "")
    page.prose("Each checked row's `relevance` ([how it is computed]"
               "(how-to/check-rag-outputs.md#settings)) is the cosine of the answer to the "
               "question. Answers to the question, right or wrong, are set against an answer "
               "to another question, labelled by the data's construction. The baseline is the "
               "rule \"shares a content word with the question\".")
    page.source("answer_relevance.json", "python benchmarks/answer_relevance.py", data)
    rows = []
    for source, sides in data["ranking"].items():
        for side, r in sides.items():
            rows.append([label(source), side, r["relevance"]["pairs"],
                         with_ci(r["relevance"]["roc_auc"], r["relevance"]["roc_auc_ci95"]),
                         with_ci(r["baseline_shares_a_question_word"]["roc_auc"],
                                 r["baseline_shares_a_question_word"]["roc_auc_ci95"])])
    page.add(*table(["source", "side", "pairs", "relevance ROC-AUC",
                     "shares a question word ROC-AUC"], rows))
    verdicts = data["verdict_leave_one_source_out"]
    page.add(*table(["judged on", "cosine floor from the other source",
                     "balanced accuracy at that floor", "own best floor",
                     "shares a question word: balanced accuracy"],
                    [[label(s), v["cosine_floor_from_other_source"],
                      f3(v["cosine_balanced_accuracy"]), v["own_best_cosine_floor"],
                      f3(v["shares_a_question_word_balanced_accuracy"])]
                     for s, v in verdicts.items()]))
    page.add(f"An \"off the question\" verdict ships: {str(data['verdict_ships']).lower()}.", "")


# --- sections: ingest, retrieval, vector search, generation, serving ----------------------


def ingest(page: Page) -> None:
    data = page.load("ingest_scaling.json")
    page.add("## Ingest", "")
    page.prose("Splitting and chunking files of generated text of growing size, embedding "
               "excluded, then a full ingest of the smaller files into SQLite with a BM25 "
               "index alone and with the default layout (BM25 and a MiniLM dense index). "
               "Peak memory is measured above what the process held before reading, as a "
               "multiple of the file and of the text Python holds.")
    page.source("ingest_scaling.json", "python benchmarks/ingest_scaling.py", data)
    rows = []
    full = []
    for r in data["runs"]:
        rows.append([r["kind"], r["mb"], count(r["chunks"]), seconds(r["seconds"]),
                     f"{r['seconds_per_mb']:.3f}", f2(r["memory_x_file"]),
                     f2(r["memory_x_text"]), r["longest_chunk"]])
        if "full_ingest_default_s" in r:
            full.append([r["kind"], r["mb"], count(r["chunks"]),
                         f"{seconds(r['full_ingest_bm25_s'])} "
                         f"({count(r['full_ingest_bm25_chunks_per_s'])} chunks/s)",
                         f"{seconds(r['full_ingest_default_s'])} "
                         f"({f1(r['full_ingest_default_chunks_per_s'])} chunks/s)"])
    page.add(*table(["text", "MB", "chunks", "split and chunk", "s/MB", "peak memory × file",
                     "× text", "longest chunk (chars)"], rows))
    page.add(*table(["text", "MB", "chunks", "BM25 index alone", "default layout"], full))
    page.add(*table(["text", "s/MB, largest file against smallest",
                     "memory × file, largest against smallest"],
                    [[kind, f2(v["seconds_per_mb_ratio_largest_to_smallest"]),
                      f2(v["memory_x_file_ratio_largest_to_smallest"])]
                     for kind, v in data["linearity"].items()]))
    targets = data["targets"]
    page.add(*table(["target", "met"], [[label(k), v] for k, v in targets.items()]))
    page.plot("ingest_scaling", "Seconds to split and chunk, and full-ingest chunks per second, "
              "by file size")
    rate = [r for r in data["runs"] if "full_ingest_default_chunks_per_s" in r]
    page.headline("Full ingest, default layout (embedding every chunk)",
                  f"{f1(rate[-1]['full_ingest_default_chunks_per_s'])} chunks/s "
                  f"({rate[-1]['kind']}, {rate[-1]['mb']} MB)", "ingest")

    data = page.load("ingest_ray.json")
    page.add("### Ingest on Ray", "")
    page.prose("The same ingest, local and on Ray, into PostgreSQL; every run must store the "
               "same documents and chunk ids as the local one.")
    page.source("ingest_ray.json", "python benchmarks/ingest_ray.py", data)
    page.add(f"Corpus: {data['corpus']}; layout: {data['layout']}; store: {data['store']}.", "")
    page.add(*table(["run", "Ray start", "documents", "chunks", "ingest", "chunks/s",
                     "store writes (chunks/s)", "load average before, after",
                     "same as local"],
                    [[label(name), seconds(r["ray_start_seconds"]) if "ray_start_seconds" in r
                      else "–", r["documents"], r["chunks"], seconds(r["seconds"]),
                      f1(r["chunks_per_second"]), f1(r["store_chunks_per_second"]),
                      ", ".join(f2(x) for x in r["load_average_before_after"]),
                      r.get("same_documents_and_chunks_as_local", "–")]
                     for name, r in data["runs"].items()]))

    data = page.load("ingest_ray_scifact.json")
    page.add("### SciFact ingest on Ray", "")
    page.prose("The full SciFact corpus ingested locally and on Ray into PostgreSQL, then "
               "queried with the dev claims from each store: the two stores must hold the same "
               "chunk ids, spans, texts and vectors, and retrieve alike.")
    page.source("ingest_ray_scifact.json", data["command"], data)
    page.add(f"Corpus: {data['corpus']}; layout: {data['layout']}; store: {data['store']}; "
             f"queries: {data['queries']}.", "")
    page.add(*table(["run", "Ray start", "documents", "chunks", "ingest", "chunks/s",
                     "load average before, after"],
                    [[label(name), seconds(r["ray_start_seconds"]) if "ray_start_seconds" in r
                      else "–", count(r["documents"]), count(r["chunks"]),
                      seconds(r["seconds"]), f1(r["chunks_per_second"]),
                      ", ".join(f2(x) for x in r["load_average_before_after"])]
                     for name, r in data["runs"].items()]))
    page.add(*table(["index", "same as local", "local", "Ray"],
                    [[label(index),
                      ", ".join(label(k) for k, v in found.items()
                                if k.startswith("same_") and v is True) or "no",
                      count(found.get("chunks_local", found.get("vectors_local", 0))),
                      count(found.get("chunks_ray", found.get("vectors_ray", 0)))
                      + (f"; max abs difference {found['max_abs_difference']}"
                         if "max_abs_difference" in found else "")]
                     for index, found in data["identity"].items()]))
    stores = list(data["retrieval"])
    retrievers = [k for k in data["retrieval"][stores[0]] if k != "queries"]
    page.add(*table(["retriever"] + [f"{label(s)}: recall@10, nDCG@10" for s in stores],
                    [[name] + [f"{f3(data['retrieval'][s][name]['recall@10'])}, "
                               f"{f3(data['retrieval'][s][name]['ndcg@10'])}" for s in stores]
                     for name in retrievers]))

    data = page.load("ingest_projection.json")
    page.add("### Projected ingest on more workers", "")
    page.prose("**Projected, not measured.** `benchmarks/ingest_projection.py` only does "
               "arithmetic on the measured rates above, under the assumption it records.")
    page.source("ingest_projection.json", "python benchmarks/ingest_projection.py", data)
    measured = data["measured"]
    page.add(f"Chunks per GB: {count(measured['chunks_per_gb'])} "
             f"({measured['chunks_per_gb_from']}); "
             f"chunks/s per worker: {measured['chunks_per_second_per_worker']} "
             f"({measured['chunks_per_second_from']}); store writes: "
             f"{measured['store_chunks_per_second']} chunks/s. Assumptions: "
             f"{data['assumptions']}", "")
    page.add(*table(["text", "workers", "chunks", "chunks/s", "limited by store writes",
                     "hours"],
                    [[f"{r['gb']} GB", r["workers"], count(r["chunks"]),
                      f1(r["chunks_per_second"]), r["limited_by_store_writes"], f1(r["hours"])]
                     for r in data["ray_workers"]]))


def retrieval(page: Page) -> None:
    data = page.load("retrieval.json")
    page.add("## Retrieval", "")
    page.prose("The full SciFact corpus is ingested and queried with the dev claims, their "
               "cited abstracts counting as relevant. Dense queries per second include "
               "embedding the claim; rank-bm25 over the same chunks and tokens is the speed "
               "baseline for the BM25 retriever.")
    page.source("retrieval.json", data["command"], data)
    page.add(f"Data: {data['dataset']}; {count(data['documents'])} documents, "
             f"{data['queries']} queries; hybrid: RRF over {', '.join(data['hybrid']['parts'])},"
             f" k = {data['hybrid']['rrf_k']}.", "")
    page.add(*table(["retriever", "recall@5", "recall@10", "nDCG@10", "queries/s"],
                    [[name, f3(q["recall@5"]), f3(q["recall@10"]), f3(q["ndcg@10"]),
                      count(data["queries_per_second"][name])]
                     for name, q in data["quality"].items()]))
    b = data["bm25_vs_rank_bm25"]
    ing = data["ingest"]
    page.add(*table(["", "value"], [
        ["rank-bm25 queries/s (baseline)", f1(b["rank_bm25_qps"])],
        ["veritype BM25 queries/s (store look-up included)", f1(b["veritype_bm25_qps"])],
        ["bm25s search alone, queries/s", f1(b["bm25s_search_only_qps"])],
        ["veritype vs rank-bm25", f"{f1(b['speedup_veritype_vs_rank_bm25'])}×"],
        ["ingest, dense vectors included", f"{seconds(ing['seconds_wall'])} "
                                           f"({f1(ing['documents_per_second_wall'])} documents/s)"],
    ]))
    h = data["quality"]["hybrid"]
    page.headline("Retrieval on SciFact, hybrid", f"recall@10 {f3(h['recall@10'])}, "
                  f"nDCG@10 {f3(h['ndcg@10'])}", "retrieval")

    data = page.load("embedder.json")
    page.add("### The embedder", "")
    page.prose("veritype derives a fused int8 graph from the shipped MiniLM model without "
               "torch; the benchmark compares it with the source file and with the graph "
               "onnxruntime's torch-based optimizer writes.")
    page.source("embedder.json", "python benchmarks/embedder.py", data)
    cps = data["chunks_per_s"]
    page.add(*table(["", "value"], [
        ["demo chunks/s, derived graph (two sessions)",
         f"{f1(cps['torch_free'])}, {f1(cps['torch_free_again'])}"],
        ["demo chunks/s, source file (baseline)", f1(cps["source"])],
        ["demo chunks/s, torch-based optimizer's graph", f1(cps["torch_based"])],
        ["cosine to the source's vectors: min, mean",
         f"{f3(data['cosine_torch_free_vs_source']['min'])}, "
         f"{f3(data['cosine_torch_free_vs_source']['mean'])}"],
        ["identical to the torch-based file", data["identical_files"]],
        ["build seconds, torch-free / torch-based",
         f"{f2(data['build_seconds_torch_free'])} / {f2(data['build_seconds_torch_based'])}"],
    ]))


def vector_search(page: Page) -> None:
    data = page.load("vector_search.json")
    page.add("## Vector search at scale", "")
    page.prose("A top-k dense search, one query at a time, on the two paths the stores "
               "search by: in memory (exact in numpy, a usearch HNSW index above the store's "
               "threshold) and in PostgreSQL (pgvector's HNSW index). Recall is measured "
               "against exact search. The synthetic vectors are spread evenly over the "
               "sphere, without the clusters real embeddings have: the hardest case for a "
               "graph index.")
    page.source("vector_search.json", "python benchmarks/vector_search.py --sizes 10000 100000 "
                "1000000 --hnsw-max 100000 --postgres --postgres-max 10000 --real-docs 3000",
                data)
    syn = data["synthetic"]
    page.add(f"k = {syn['k']}. Synthetic: {syn['vectors']}, dimension {syn['dim']}, seed "
             f"{syn['seed']}; "
             f"queries: {syn['queries']}. HNSW above {count(data['ann_threshold'])} vectors.",
             "")
    rows = []
    for size in data["sizes"]:
        hnsw = size.get("hnsw")
        pg = size.get("pgvector")
        sweep = size.get("hnsw_expansion_search_sweep") or []
        widest = sweep[-1] if sweep else None
        rows.append([count(size["vectors"]), ms(size["exact"]["p95_ms"]),
                     seconds(hnsw["build_s"]) if hnsw else "not built",
                     f"{ms(hnsw['p95_ms'])}, {f3(hnsw['recall_at_10'])}" if hnsw else "–",
                     f"{widest['expansion_search']}: {ms(widest['p95_ms'])}, "
                     f"{f3(widest['recall_at_10'])}" if widest else "–",
                     f"{ms(pg['p95_ms'])}, {f3(pg['recall_at_10'])}" if pg else "not run"])
    page.add(*table(["vectors", "exact: p95", "HNSW: build", "HNSW: p95, recall@10",
                     "HNSW, widest search: p95, recall@10", "pgvector: p95, recall@10"], rows))
    real = data["real"]
    page.add(f"Real embeddings: {real['corpus']}; queries: {real['queries']}.", "")
    page.add(*table(["index", "width", "p95", "recall@10"],
                    [["HNSW (in memory)", s["expansion_search"], ms(s["p95_ms"]),
                      f3(s["recall_at_10"])] for s in real["hnsw_expansion_search_sweep"]]
                    + [["pgvector", s["ef_search"], ms(s["p95_ms"]), f3(s["recall_at_10"])]
                       for s in real["pgvector"]["ef_search_sweep"]]))
    page.plot("vector_search", "Recall@10 against p95 latency as the search widens, synthetic "
              "and real vectors")
    largest = data["sizes"][-1]
    page.headline(f"Exact vector search, {count(largest['vectors'])} vectors",
                  f"p95 {ms(largest['exact']['p95_ms'])}", "vector-search-at-scale")
    vector_search_1m(page)


VECTOR_SEARCH_1M = (
    "vector_search_1m_memory_clustered.json", "vector_search_1m_memory_clustered_reloaded.json",
    "vector_search_1m_postgres_clustered.json", "vector_search_1m_postgres_clustered_1m.json",
    "vector_search_1m_postgres_clustered_1m_default128.json",
)


def _index_of(size: dict[str, Any]) -> tuple[str, str, dict[str, Any], list[dict[str, Any]]]:
    """The store, the name of its search width, its measurement and its sweep at one size."""
    if "pgvector" in size:
        pg = size["pgvector"]
        return "pgvector", "ef_search", pg, pg.get("ef_search_sweep", [])
    return "HNSW (in memory)", "expansion_search", size["hnsw"], size.get(
        "hnsw_expansion_search_sweep", [])


def vector_search_1m(page: Page) -> None:
    page.add("### Clustered vectors, in memory and in pgvector", "")
    page.prose("The same search on larger sets of synthetic vectors drawn with clusters, as "
               "real embeddings have, for the in-memory store's usearch HNSW index and for "
               "pgvector's. Each row names the search width (`expansion_search` in memory, "
               "`ef_search` in pgvector) its figures used; recall is against exact search "
               "over the same vectors. One file searches an index saved by the build run and "
               "read back.")
    builds = []
    widths = []
    notes = []
    for name in VECTOR_SEARCH_1M:
        data = page.load(name)
        page.source(name, data["command"], data)
        if "note" in data:
            notes.append(f"`{name}`: {data['note']}")
        for size in data["sizes"]:
            store, width, index, sweep = _index_of(size)
            if "restored_from_saved_index_s" in index:
                build = f"read back from the saved index in " \
                        f"{seconds(index['restored_from_saved_index_s'])}"
            else:
                build = f"{seconds(index.get('build_s', index.get('build_s_cumulative', 0)))} " \
                        f"({f1(index['build_vectors_per_second'])} vectors/s)"
                if "build_paused_s" in index:
                    build += (f"; paused {seconds(index['build_paused_s'])}, "
                              f"{seconds(index['build_s_excluding_pause'])} "
                              f"({f1(index['build_vectors_per_second_excluding_pause'])} "
                              "vectors/s) without the pause")
            builds.append([f"`{name}`", store, count(size["vectors"]),
                           ms(size["exact"]["p95_ms"]), build,
                           f"{width} {index[width]}", ms(index["p95_ms"]),
                           f3(index["recall_at_10"])])
            searched = {index[width]: index} | {s[width]: s for s in sweep
                                                 if s[width] != index[width]}
            for w in sorted(searched):
                widths.append([store, count(size["vectors"]), f"{width} {w}",
                               ms(searched[w]["p50_ms"]), ms(searched[w]["p95_ms"]),
                               f3(searched[w]["recall_at_10"]), f"`{name}`"])
    data = page.load(VECTOR_SEARCH_1M[0])
    syn = data["synthetic"]
    page.add(f"k = {syn['k']}; dimension {syn['dim']}, seed {syn['seed']}; vectors: "
             f"{syn['description']}; queries: {syn['queries']}.", "")
    saved = data.get("saved_index")
    if saved:
        page.add(f"Saved index ({count(saved['vectors'])} vectors, "
                 f"{count(saved['bytes'] / 2**20)} MiB): saved in {seconds(saved['save_s'])}, "
                 f"read back in {seconds(saved['reload_s'])}.", "")
    page.add(*table(["file", "index", "vectors", "exact: p95", "index build", "search width",
                     "p95", "recall@10"], builds))
    page.add(*table(["index", "vectors", "search width", "p50", "p95", "recall@10", "file"],
                    widths))
    for note in notes:
        page.add(f"Note, {note}", "")
    for name in ("vector_search_1m_memory_clustered_reloaded.json",
                 "vector_search_1m_postgres_clustered_1m_default128.json"):
        size = page.load(name)["sizes"][-1]
        store, width, index, _ = _index_of(size)
        page.headline(f"{store}, {count(size['vectors'])} clustered vectors, "
                      f"`{width}` {index[width]}",
                      f"p95 {ms(index['p95_ms'])}, recall@10 {f3(index['recall_at_10'])}",
                      "clustered-vectors-in-memory-and-in-pgvector")


def generation(page: Page) -> None:
    data = page.load("generation.json")
    page.add("## Generation", "")
    page.prose("Decoding speed of each generator backend on the same questions, with the "
               "evidence chunks in the prompt and, for `SmolLM2-135M`, with the question "
               "alone. The `openai` backend talks to `llama_cpp.server` over HTTP with the "
               "same model file.")
    page.source("generation.json", "python benchmarks/generation.py", data)
    page.add(f"Evidence: {data['evidence']}; {len(data['questions'])} questions; parameters: "
             + ", ".join(f"{k} {v}" for k, v in data["params"].items()) + ".", "")
    page.add(*table(["backend", "drafts", "tokens per draft", "decode tokens/s",
                     "end-to-end tokens/s", "median first token", "load"],
                    [[name, r["drafts"], f1(r["mean_tokens_per_draft"]),
                      f1(r["decode_tokens_per_s"]), f1(r["end_to_end_tokens_per_s"]),
                      seconds(r["median_first_token_s"]), seconds(data["load_s"][name])]
                     for name, r in data["results"].items()]))
    target = data["target"]
    page.add(f"Target: {target['what']} ≥ {target['threshold']}: measured "
             f"{target['measured']}, met: {target['met']}.", "")
    page.plot("generation", "Decode tokens per second per local backend")
    page.headline("Local generation, `SmolLM2-135M`, question-only prompts",
                  f"{f1(target['measured'])} tokens/s", "generation")


def load(page: Page) -> None:
    page.add("## Serving under load", "")
    page.prose("`benchmarks/load.py` sends `POST /qa/verify` requests to `veritype serve`, "
               "several at a time. Its disconnect storm sends heavy requests whose clients "
               "leave early, then small requests right behind them: a client that disconnects "
               "must stop its work. The replica run puts several servers over one PostgreSQL "
               "store.")
    rows = []
    for name, command in (
            ("load.json", "python benchmarks/load.py"),
            ("load_replicas.json", "python benchmarks/load.py --requests 300 --disconnects 0 "
             "--replicas 2 --postgres --output benchmarks/results/load_replicas.json")):
        data = page.load(name)
        page.source(name, command, data)
        rows.append([f"`{name}`", data["server"], data["requests"], data["concurrency"],
                     data["errors"], ms(data["p50_ms"]), ms(data["p95_ms"]),
                     ms(data["p99_ms"]), f1(data["throughput_rps"])])
    page.add(*table(["file", "server", "requests", "at a time", "errors", "p50", "p95", "p99",
                     "requests/s"], rows))
    storm = page.load("load.json")["disconnect_storm"]
    page.add(f"Disconnect storm: {storm['heavy_requests']} heavy requests, {storm['concurrency']} "
             f"at a time, every client gone after {storm['leave_after_s']} s.", "")
    page.add(*table(["small requests", "requests", "p50", "p95", "max"],
                    [[label(k), storm[k]["requests"], ms(storm[k]["p50_ms"]),
                      ms(storm[k]["p95_ms"]), ms(storm[k]["max_ms"])]
                     for k in ("small_before", "small_behind")]))
    replicas = page.load("load_replicas.json")
    page.add("Requests per replica: " + ", ".join(
        str(v) for v in replicas["requests_by_url"].values()) + ".", "")
    data = page.load("load.json")
    page.headline("Serving `POST /qa/verify`, one process",
                  f"{f1(data['throughput_rps'])} requests/s, p95 {ms(data['p95_ms'])}",
                  "serving-under-load")


# --- sections: the verifier models ---------------------------------------------------------

NLI_SETS = ("mnli_dev_matched_3k", "snli_test_2k", "sick_test", "anli_r1_dev", "rte_dev_2way")


def verifier_models(page: Page) -> None:
    data = page.load("verifier_quality.json")
    page.add("## Verifier models", "")
    page.prose("Two NLI cross-encoders ship inside the package as int8 ONNX models, `nli` and "
               "`align`, and any Hugging Face NLI model can replace them "
               "([how](how-to/train.md#use-another-nli-model)). `benchmarks/verifier_quality.py` "
               "scores the shipped models and retrains side by side on NLI sets, SciFact's "
               "gold rationales and TruthfulQA; each model card lists its training data.")
    page.source("verifier_quality.json", "python benchmarks/verifier_quality.py --checks "
                + ",".join(data["checks"]) + f" --limit {data['limit']} "
                + " ".join(f"--model {name}=…" for name in data["models"]), data)
    models = [m for m in data if isinstance(data[m], dict) and "nli_eval_accuracy" in data[m]]
    rows = []
    for key in NLI_SETS:
        rows.append([f"{label(key)} accuracy"] + [f3(data[m]["nli_eval_accuracy"][key])
                                                  for m in models])
    rows.append(["SciFact dev, gold rationales: label accuracy"]
                + [f3(data[m]["scifact_dev"]["label_accuracy"]) for m in models])
    rows.append(["TruthfulQA held-out ROC-AUC: all / not verbatim"]
                + [f"{f3(data[m]['truthfulqa']['held_out_roc_auc'])} / "
                   f"{f3(data[m]['truthfulqa']['held_out_non_verbatim_roc_auc'])}"
                   for m in models])
    rows.append(["TruthfulQA at calibrated precision 0.95: precision / recall"]
                + [f"{f3(data[m]['truthfulqa']['held_out']['precision'])} / "
                   f"{f3(data[m]['truthfulqa']['held_out']['recall'])}" for m in models])
    rows.append(["pairs/s at batch 1 / 8"]
                + [f"{f1(data[m]['pairs_per_second']['batch_1'])} / "
                   f"{f1(data[m]['pairs_per_second']['batch_8'])}"
                   if "pairs_per_second" in data[m] else "–" for m in models])
    page.add(*table([""] + [f"`{m}`" for m in models], rows))
    page.add(f"Agreement of `nli` and `align` on TruthfulQA verdicts: "
             f"{f3(data['truthfulqa_agreement_nli_align'])}.", "")
    for m in ("nli", "align"):
        t = data[m]["truthfulqa"]
        page.headline(f"`{m}` on TruthfulQA held out, calibrated precision 0.95",
                      f"precision {f3(t['held_out']['precision'])}, recall "
                      f"{f3(t['held_out']['recall'])}", "verifier-models")

    data = page.load("verifier_speed.json")
    page.add("### Speed by backend", "")
    page.prose("The shipped `nli` model's pairs per second and peak memory on short MNLI pairs, "
               "by backend and batch size; torch in float32 is the baseline.")
    page.source("verifier_speed.json", "python benchmarks/verifier_speed.py", data)
    backends = ("torch_fp32", "onnx_fp32", "onnx_int8")
    batches = sorted({int(k.rsplit("batch", 1)[1]) for k in data if "_batch" in k
                      and k.startswith(backends)})
    page.add(*table(["backend"] + [f"batch {b}: pairs/s (peak MB)" for b in batches],
                    [[label(b)] + [f"{f1(data[f'{b}_batch{n}']['pairs_per_s'])} "
                                   f"({count(data[f'{b}_batch{n}']['peak_rss_mb'])})"
                                   for n in batches] for b in backends]))
    page.add(f"int8 against torch: {f2(data['speedup_int8_vs_torch_batch8'])}× at batch 8, "
             f"{f2(data['speedup_int8_vs_torch_batch32'])}× at batch 32.", "")
    page.plot("verifier_speed", "Pairs per second by backend and batch size")

    data = page.load("determinism.json")
    page.add("### The same pair, the same scores", "")
    page.prose("Dynamic int8 quantisation scales a run's activations by its largest value, so "
               "in a batch a pair's scores depend on its batch-mates. veritype scores each "
               "pair in a run of its own; this measures what that costs and what batching "
               "would change.")
    page.source("determinism.json", "python benchmarks/determinism.py", data)
    page.add(*table(["model, pairs", "pairs/s, one per run", "pairs/s, batched",
                     "largest score difference in batches", "label flips in batches"],
                    [[label(k), f1(v["pairs_per_s_one_per_run"]), f1(v["pairs_per_s_batch8"]),
                      f3(v["batch8_max_abs_difference"]),
                      f"{v['batch8_label_flips']} of {data['pairs_per_set']}"]
                     for k, v in data.items()
                     if isinstance(v, dict) and "batch8_label_flips" in v]))

    data = page.load("cpu_families.json")
    page.add("### The same pair on another CPU", "")
    page.prose("x86 CPUs with VNNI sum the products of int8 models exactly; those without "
               "sum pairs of products in short integers, which saturate. The shipped int8 "
               "models therefore score the same pair differently on the two families, and "
               "their thresholds were fitted on CPUs without VNNI. This compares every output "
               "of `check` on the labelled RAG rows and of the default views on a third of "
               "the type contract, as the identity references of the two families hold them "
               "(each written on a CPU of its family from the same code, at revision "
               "e8e9d8b; a later revision that changes checking holds the reference of the "
               "family it was written on, until a CPU of the other family writes its own).")
    page.source("cpu_families.json", "python benchmarks/cpu_families.py", data)
    by_view = data["largest_score_difference_by_view"]
    page.add(*table(["families", "claims", "claim types differing", "row verdicts differing",
                     "view verdicts differing", "largest support difference",
                     "largest score difference"],
                    [[" and ".join(data["families"]), str(data["claims"]),
                      str(data["claim_types_differing"]),
                      f"{data['row_verdicts_differing']} of {data['rows']}",
                      str(data["view_verdicts_differing"]),
                      f3(data["largest_support_difference"]),
                      ", ".join(f"{view} {f3(value)}" for view, value in by_view.items())]]))

    data = page.load("long_evidence.json")
    page.add("### Evidence windows", "")
    page.prose("The views score a claim against windows of the evidence. Window sizes were "
               "compared on long training-side documents, a summary scoring its weakest "
               "sentence; a score that ignores the evidence has ROC-AUC one half.")
    page.source("long_evidence.json", "python benchmarks/long_evidence.py", data)
    d = data["data"]
    page.add(f"Data: {d['set']} rows {d['rows'][0]}–{d['rows'][1] - 1}, {d['summaries']} "
             f"summaries, {count(d['claims'])} claims, median document "
             f"{count(d['median_document_chars'])} characters.", "")
    page.add(*table(["view: windows", "ROC-AUC", "seconds"],
                    [[k, with_ci(v["roc_auc"], v["roc_auc_ci95"]), f1(v["seconds"])]
                     for k, v in data["results"].items()]))

    data = page.load("numeric_kinds.json")
    page.add("### The numeric view's contradictions by kind", "")
    page.prose("How often the `numeric` view's contradiction is right (the claim is not "
               "supported) when it fires, per kind of value and source, at the floor the "
               "file records.")
    page.source("numeric_kinds.json", "python benchmarks/numeric_kinds.py", data)
    page.add(f"Floor {data['floor']}, {count(data['pairs'])} pairs.", "")
    page.add(*table(["kind", "fired", "not supported", "precision",
                     "per source (fired, precision)"],
                    [[k, v["all"]["fired"], v["all"]["not_supported"], f3(v["all"]["precision"]),
                      "; ".join(f"{label(s)} {r['fired']}, {f3(r['precision'])}"
                                for s, r in v.items() if s != "all")]
                     for k, v in data["by_kind"].items()]))


# --- sections: the aggregator and the type contract ---------------------------------------


def default_aggregator(page: Page) -> None:
    data = page.load("calibrated_aggregator/fit_report.json")
    page.add("## The default aggregator", "")
    page.prose("The default aggregator (`src/veritype/models/aggregator/`) is fitted by "
               "`veritype train aggregator` on training-side sources only. Each candidate set "
               "of views is judged by leave-one-source-out: fitted on all sources but one and "
               "judged on the one left out, by the share of claims typed right with both kinds "
               "of claim weighing the same. The verbatim substring and accepting everything "
               "are the baselines.")
    page.source("calibrated_aggregator/fit_report.json",
                "veritype train aggregator --data-dir DATA_DIR --output-dir DIR", data)
    chosen = data["chosen"]
    page.add(f"Chosen: {chosen['candidate']} (best single view: {chosen['best_single_view']}); "
             f"τ {chosen['tau']}, τ' {chosen['tau_low']}; the judge's ask band "
             f"{chosen['ask'][0]}–{chosen['ask'][1]}; decisive rules: "
             + ", ".join(f"`{r['view']}` from {r['floor']}" for r in chosen["decisive"]) + ".",
             "")
    shipped = json.loads((ROOT / "src" / "veritype" / "models" / "aggregator" /
                          "aggregator.json").read_text(encoding="utf-8"))["thresholds"]
    if shipped != [chosen["tau"], chosen["tau_low"]]:
        page.add(f"Shipped: τ {shipped[0]}, τ' {shipped[1]} (the model card says why; τ' is "
                 "the lower end of the judge's ask band, the highest P(supported) at which "
                 "Unsupported is 95% precise in every fitting source).", "")
    per = data["data"]["per_source"]
    sources = list(per)
    loo = data["leave_one_source_out"]
    rows = [[f"`{name}`", f3(c["mean_typed_right"])]
            + [f3(c["per_source"][s]["typed_right"]) for s in sources]
            for name, c in loo.items() if c.get("eligible", True)]
    rows.append(["verbatim substring", f3(sum(per[s]["verbatim_typed_right"] for s in sources)
                                          / len(sources))]
                + [f3(per[s]["verbatim_typed_right"]) for s in sources])
    rows.append(["accept everything", f3(sum(per[s]["accept_all_typed_right"] for s in sources)
                                         / len(sources))]
                + [f3(per[s]["accept_all_typed_right"]) for s in sources])
    page.add(*table(["views", "mean typed right"] + [label(s) for s in sources], rows))
    ineligible = [name for name, c in loo.items() if not c.get("eligible", True)]
    if ineligible:
        page.add("Not eligible for the default (a view read some of these sources in "
                 "training): " + ", ".join(f"`{n}`" for n in ineligible) + ".", "")
    best = loo[chosen["candidate"]]
    page.add(*table(["held out", "claims", "balanced accuracy", "ROC-AUC", "Verified share",
                     "Verified precision", "Unsupported precision"],
                    [[label(s), count(per[s]["claims"]), f3(r["balanced_accuracy"]), f3(r["auc"]),
                      f3(r["verified"]), f3(r["verified_precision"]),
                      f3(r["unsupported_precision"])]
                     for s, r in best["per_source"].items()]))
    rule = data["rules"]["numeric"]
    page.add(f"The `numeric` view's contradiction decides alone from the floor "
             f"{rule['floor']}; per floor, how often it fires and is right:", "")
    page.add(*table(["floor", "fired", "precision"] + [label(s) for s in sources],
                    [[f["floor"], f["fired"], f3(f["precision"])]
                     + [f"{f['per_source'][s]['fired']}, {f3(f['per_source'][s]['precision'])}"
                        if s in f["per_source"] else "–" for s in sources]
                     for f in rule["floors"]]))
    page.headline("Default aggregator, leave one source out: mean share typed right",
                  f"{f3(best['mean_typed_right'])} (`{chosen['candidate']}`)",
                  "the-default-aggregator")

    data = page.load("candidate_three_types/fit_report.json")
    page.add("### Three types with stated precision: a candidate, not the default", "")
    page.prose("A candidate aggregator sets τ where Verified claims are supported at least the "
               "stated precision of the time in every source, and τ' where Unsupported claims "
               "are not supported as often; the claims between are Uncertain. Candidates are "
               "judged by the share typed right less the share typed wrong, Uncertain counting "
               "neither. Use it with `--aggregator learned --aggregator-file "
               "benchmarks/results/candidate_three_types/aggregator.json`.")
    page.source("candidate_three_types/fit_report.json", "veritype train aggregator --data-dir "
                "DATA_DIR --output-dir benchmarks/results/candidate_three_types --per-source "
                "400 --judge-head-from src/veritype/models/aggregator/aggregator.json", data)
    chosen = data["chosen"]
    page.add(f"Chosen: {chosen['candidate']}; τ {chosen['tau']}, τ' {chosen['tau_low']}.", "")
    loo = data["leave_one_source_out"]
    sources = net_right_table(page, loo)
    best = loo[chosen["candidate"]]
    page.add(*table(["held out", "Verified share (precision)", "Unsupported precision",
                     "Uncertain share", "decided", "ROC-AUC"],
                    [[label(s), f"{f3(r['verified'])} ({f3(r['verified_precision'])})",
                      f3(r["unsupported_precision"]), f3(r["uncertain"]), f3(r["decided"]),
                      f3(r["auc"])] for s, r in best["per_source"].items()]))

    data = page.load("aggregator_paraphrase/fit_report.json")
    page.add("### A paraphrase signal offered to the fit", "")
    page.prose("The `paraphrase` view scores a claim by the cosine of its sentence embedding "
               "(the shipped retrieval embedder) to its closest evidence sentence; it never "
               "contradicts. Offered to the same leave-one-source-out choice as the other "
               "views, it is kept only if a candidate with it is judged better on the held-out "
               "sources.")
    page.source("aggregator_paraphrase/fit_report.json", "veritype train aggregator --data-dir "
                "DATA_DIR --output-dir benchmarks/results/aggregator_paraphrase --per-source "
                "400", data)
    loo = data["leave_one_source_out"]
    net_right_table(page, loo)
    with_it = {name: c["mean_net_right"] for name, c in loo.items() if "paraphrase" in c["views"]}
    best = max(with_it, key=with_it.__getitem__)
    page.add(f"Chosen: `{data['chosen']['candidate']}`. The best candidate with `paraphrase` "
             f"(`{best}`, {f3(with_it[best])}) is judged below it "
             f"({f3(loo[data['chosen']['candidate']]['mean_net_right'])}): the signal is not "
             "kept in the default.", "")


def net_right_table(page: Page, loo: dict[str, Any]) -> list[str]:
    """The leave-one-source-out table of a fit: each candidate's mean and per-source share
    typed right less wrong; returns the sources, in the fit's order."""
    sources = list(next(iter(loo.values()))["per_source"])
    page.add(*table(["views", "mean (right − wrong)"] + [label(s) for s in sources],
                    [[f"`{name}`", f3(c["mean_net_right"])]
                     + [f3(c["per_source"][s]["net_right"]) for s in sources]
                     for name, c in loo.items()]))
    return sources

def type_contract(page: Page) -> None:
    data = page.load("type_contract.json")
    page.add("## The type contract", "")
    page.prose("`benchmarks/data/type_contract.jsonl` holds hand-written claims over short "
               "passages in several domains, written before any fitting, each with the type a "
               "demanding user expects: copies, shortened copies, paraphrases and true hedged "
               "claims Verified; changed numbers, changed names, attributes swapped between "
               "two entities of the passage, negations, unmentioned facts and false hedged "
               "claims Unsupported. `benchmarks/data/attribution_swaps.jsonl` adds claims that "
               "give a name of the passage another's role, and rewordings that keep the roles. "
               "Single views are read by their own verdict (entailed is Verified).")
    page.source("type_contract.json", "python benchmarks/type_contract.py"
                + (" --judge" if data.get("with_judge") else ""), data)
    default = data["default"]
    categories = list(default["per_category"])
    typed = [("default (" + ", ".join(f"`{v}`" for v in data["views"]) + ")", default)]
    if data.get("with_judge"):
        typed.append(("default + `judge`", data["with_judge"]))
    typed += [(f"`{name}` alone", v) for name, v in data["single_views"].items()]
    typed.append(("verbatim substring", data["verbatim_baseline"]))
    rows = [[who, f3(v["share"])] + [f3(v["per_category"][c]["share"]) for c in categories]
            for who, v in typed]
    rows.append(["accept everything", f3(data["accept_all_share"])] + ["–"] * len(categories))
    page.add(*table(["typed by", "right"] + [label(c) for c in categories], rows))
    page.add(f"Default: {default['right']} of {default['claims']} claims typed as expected; "
             f"Verified precision {f3(default['verified_precision'])}, Unsupported precision "
             f"{f3(default['unsupported_precision'])}.", "")
    page.plot("type_contract", "Share typed as expected per category: the default, the single "
              "views and the verbatim baseline")
    page.headline("Type contract: claims typed as expected (default)",
                  f"{f3(default['share'])} ({default['right']} of {default['claims']}); verbatim "
                  f"baseline {f3(data['verbatim_baseline']['share'])}", "the-type-contract")

    cand = page.load("candidate_three_types/type_contract.json")
    page.add("### With the three types (the candidate)", "")
    page.prose("The same claims typed with the candidate's thresholds: a claim between τ' and "
               "τ is Uncertain, which is neither right nor wrong in the lenient share.")
    page.source("candidate_three_types/type_contract.json", "python benchmarks/type_contract.py"
                + CANDIDATE_RUN.format(name="candidate_three_types/type_contract.json"), cand)
    page.add(*table(["aggregator", "exact type", "not typed wrong", "Verified precision",
                     "Unsupported precision", "decided"],
                    [[who, f3(v["share"]), f3(v["lenient_share"]), f3(v["verified_precision"]),
                      f3(v["unsupported_precision"]), f3(v["decided"])]
                     for who, v in (("default", default), ("candidate", cand["default"]))]))
    page.add(*table(["category", "default: types", "candidate: types"],
                    [[label(c)] + [", ".join(f"{t} {n}" for t, n in sorted(
                        v["types_by_category"][c].items()))
                        for v in (default, cand["default"])] for c in categories]))

    page.add("### Surface edits", "")
    page.prose("Claim and variant pairs, written before the change, that differ only by a "
               "leading article, letter case, the final full stop, white space, digit grouping "
               "or British or American spelling. Any change of type between the two is a "
               "fault.")
    rows = []
    for name, who in (("metamorphic.json", "default"),
                      ("candidate_three_types/metamorphic.json", "candidate")):
        m = page.load(name)
        page.source(name, "python benchmarks/metamorphic.py"
                    + (CANDIDATE_RUN.format(name=name) if who == "candidate" else ""), m)
        rows.append([who, m["pairs"], m["type_changes"]]
                    + [f"{e['type_changes']} of {e['pairs']}" for e in m["per_edit"].values()])
    edits = list(page.load("metamorphic.json")["per_edit"])
    page.add(*table(["aggregator", "pairs", "pairs that change type"]
                    + [label(e) for e in edits], rows))
    m = page.load("metamorphic.json")
    page.headline("Surface edits that change a claim's type", f"{m['type_changes']} of "
                  f"{m['pairs']} pairs", "surface-edits")

    data = page.load("verify_throughput.json")
    page.add("### Speed beside quality", "")
    page.prose("The contract's claim and evidence pairs verified with the default views, by "
               "batch size and by how many evidence windows the views score per claim, with the "
               "share of the contract typed as expected at each setting.")
    page.source("verify_throughput.json", "python benchmarks/verify_throughput.py", data)
    page.add(*table(["batch", "windows per claim", "pairs", "pairs/s", "contract typed right"],
                    [[s["batch_size"], s["max_windows"], s["pairs"], f1(s["pairs_per_second"]),
                      f3(s["contract_share"])] for s in data["settings"]]))
    page.add(f"Target: {data['target_pairs_per_second']} pairs/s.", "")
    page.plot("verify_throughput", "Pairs per second against the share of the contract typed "
              "right, per batch size and number of windows")


# --- sections: the judge ------------------------------------------------------------------


def judge(page: Page) -> None:
    page.add("## The judge", "")
    page.prose("The opt-in `judge` view asks a language model whether the evidence supports a "
               "claim and reads P(yes) ([how to run it](how-to/judge.md)). "
               "`benchmarks/judge_quality.py` scores the same pairs with `nli` and the judge on "
               "sets no veritype model trained on; nothing is fitted on them. A score that "
               "ignores the evidence has ROC-AUC one half.")
    data = page.load("judge_quality.json")
    page.source("judge_quality.json", "python benchmarks/judge_quality.py", data)
    page.add(*table(["set", "pairs (supported)", "`nli` ROC-AUC", "`judge` ROC-AUC",
                     "judge gain, paired bootstrap", "`nli` s/claim", "`judge` s/claim"],
                    [[label(s), f"{r['pairs']} ({r['supported']})",
                      with_ci(r["nli_auc"], r["nli_ci95"]),
                      with_ci(r["judge_auc"], r["judge_ci95"]), ci(r["gain_ci95"]),
                      f"{r['nli_seconds_per_claim']:.3f}", f2(r["judge_seconds_per_claim"])]
                     for s, r in data["sets"].items()]))
    page.plot("judge_quality", "ROC-AUC of nli and of the judge per set, with intervals")

    head = page.load("calibrated_aggregator/fit_report.json")["judge_head"]
    page.add("### The judge under the default aggregator", "")
    page.prose("With the judge on, every claim whose P(supported) falls inside the default "
               "aggregator's ask band goes to the judge, and a head fitted by "
               "leave-one-source-out on a sample of such unsettled training-side claims types "
               "it. The encoders alone are the baseline.")
    page.source("calibrated_aggregator/fit_report.json",
                "veritype train aggregator --data-dir DATA_DIR --output-dir DIR --judge",
                page.load("calibrated_aggregator/fit_report.json"))
    page.add(f"Ask band {head['ask_band'][0]}–{head['ask_band'][1]}; {head['sample']} claims.", "")
    page.add(*table(["held out", "claims", "encoders: balanced accuracy",
                     "judge: balanced accuracy (ROC-AUC)",
                     "judge + encoders: balanced accuracy (ROC-AUC)"],
                    [[label(s), r["claims"], f3(r["encoders_balanced_accuracy"]),
                      f"{f3(r['judge']['balanced_accuracy'])} ({f3(r['judge']['auc'])})",
                      f"{f3(r['judge + encoders']['balanced_accuracy'])} "
                      f"({f3(r['judge + encoders']['auc'])})"]
                     for s, r in head["leave_one_source_out"].items()]))

    data = page.load("judge_endpoint.json")
    page.add("### The judge behind an endpoint", "")
    page.prose("The default judge model served by `llama_cpp.server` on loopback and read "
               "through the `openai` judge, against the same model in process, on claims of "
               "the type contract. Calling every claim supported is the baseline.")
    page.source("judge_endpoint.json", "python benchmarks/judge_endpoint.py", data)
    acc = data["accuracy_against_the_contract"]
    page.add(*table(["", "in process", "endpoint"], [
        ["seconds per claim", f2(data["seconds_per_claim"]["in_process"]),
         f2(data["seconds_per_claim"]["endpoint"])],
        ["judged as the contract expects", f3(acc["in_process"]), f3(acc["endpoint"])],
        ["baseline: every claim supported", f3(acc["baseline_every_claim_supported"]), ""],
        ["P(yes) difference: mean, max", f"{data['p_yes_difference']['mean']}, "
                                          f"{data['p_yes_difference']['max']}", ""],
        ["same verdict at one half", f3(data["agreement_at_half"]), ""],
    ]))
    page.add(f"Model {data['model']}; {data['claims']} claims.", "")

    data = page.load("eval_truthfulqa-judge.json")
    h = data["headline"]
    page.add("### What the judge adds on TruthfulQA", "")
    page.prose("`veritype eval truthfulqa` with the judge among the views: the learned "
               "aggregator with and without the judge, at the threshold calibrated for "
               "precision on all calibration claims and on the calibration claims that are "
               "not verbatim copies, and the shipped default's own point.")
    page.source("eval_truthfulqa-judge.json", "veritype eval truthfulqa --data-dir DATA_DIR "
                f"--views {','.join(data['config']['views'])} --limit {data['config']['limit']} "
                f"--seeds {h['seeds']}", data)
    rows = []
    for claims in ("held_out", "non_verbatim", "borderline"):
        for point, what in (("of_shipped_default", "shipped default"),
                            ("at_cal_p95", "calibrated P ≥ 0.95"),
                            ("at_non_verbatim_cal_p95", "calibrated on non-verbatim claims")):
            off = (h.get(f"judge_off_{claims}_precision_{point}"),
                   h.get(f"judge_off_{claims}_recall_{point}"))
            on = (h.get(f"judge_on_{claims}_precision_{point}"),
                  h.get(f"judge_on_{claims}_recall_{point}"))
            rows.append([label(claims), what, f"{f3(off[0])} / {f3(off[1])}",
                         f"{f3(on[0])} / {f3(on[1])}"])
    page.add(*table(["claims", "threshold", "without judge: precision / recall",
                     "with judge: precision / recall"], rows))
    page.add(f"Full report: [truthfulqa-judge](results/truthfulqa-judge.md). Held-out claims: "
             f"{count(h['held_out_claims'])}; verbatim baseline: precision "
             f"{f3(h['verbatim_baseline_precision'])}, recall {f3(h['verbatim_baseline_recall'])}"
             f", non-verbatim recall {f3(h['verbatim_baseline_non_verbatim_recall'])}.", "")


# --- sections: training ---------------------------------------------------------------------


def training(page: Page) -> None:
    page.add("## Training", "")
    page.prose("How to run each training command: [Train your own verifier](how-to/train.md). "
               "These benchmarks measure what the training options buy, always against a "
               "baseline run of the same recipe, on validation data no variant trained on.")

    data = page.load("training_speed.json")
    page.add("### Training speed", "")
    page.prose("Training steps of MiniLM on short and long pairs mixed, median of runs taken in "
               "turn, per recipe change.")
    page.source("training_speed.json", "python benchmarks/training_speed.py", data)
    page.add(*table(["recipe", "pairs/s (range)", "vs baseline"],
                    [[name, f"{f1(v['pairs_per_s'])} ({f1(v['pairs_per_s_range'][0])}–"
                            f"{f1(v['pairs_per_s_range'][1])})", f2(v["speed_vs_baseline"])]
                     for name, v in data["variants"].items()]))

    data = page.load("training_budget.json")
    page.add("### What the speed buys", "")
    page.prose("Each variant trains MiniLM from scratch on as many pairs of the recipe's pool "
               "as its speed allows in the baseline's time, on each training seed. The "
               "baseline row gives its mean and the seeds' range; the other rows give the "
               "mean gain over the baseline, then each seed's paired bootstrap interval.")
    page.source("training_budget.json", "python benchmarks/training_budget.py", data)
    metrics = list(data["validation"])
    rows = []
    for name, v in data["variants"].items():
        seeds = list(v["seeds"].values())
        if "mean_gain_over_baseline" not in v:
            rows.append([f"{name} ({count(v['pairs'])})"]
                        + [f"{f3(v['mean_validation'][m])} ("
                           + "–".join(f3(x) for x in sorted(s["validation"][m] for s in seeds))
                           + ")" for m in metrics])
        else:
            rows.append([f"{name} ({count(v['pairs'])})"]
                        + [f"{gain(v['mean_gain_over_baseline'][m])} "
                           + "; ".join(ci(s["gain_over_baseline_ci95"][m], gain) for s in seeds)
                           for m in metrics])
    page.add(*table(["variant (pairs)"] + [label(m) for m in metrics], rows))
    page.add("Training seconds per run: " + "; ".join(
        f"{name} " + ", ".join(f1(s["train_seconds"]) for s in v["seeds"].values())
        for name, v in data["variants"].items()) + ".", "")

    for name, title, text in (
            ("synthetic_ablation.json", "Synthetic pairs",
             "Each kind of synthetic pair a recipe can add, added alone to the same replay of "
             "the clean MiniLM retrain; ROC-AUC on validation data, with the paired bootstrap "
             "interval of the gain over the replay alone."),
            ("distillation_ablation.json", "Distillation",
             "The same ablation with soft labels from a slower teacher (MPNet, or the judge's "
             "P(yes)) against gold labels of the same pairs.")):
        data = page.load(name)
        page.add(f"### {title}", "")
        page.prose(text)
        page.source(name, "python benchmarks/synthetic_ablation.py --base DIR"
                    + (" --teacher mpnet=DIR --only replay,qa,all,qa@mpnet,all@mpnet --soft "
                       "dialogue_gold=FILE --soft dialogue_judge=FILE"
                       if name.startswith("distillation") else ""), data)
        metrics = list(data["validation"])
        page.add(*table(["variant", "pairs"] + [label(m) for m in metrics],
                        [[v_name, count(v["pairs"])]
                         + [f"{f3(v['roc_auc'][m])} "
                            f"{ci(v.get('gain_over_replay_ci95', {}).get(m), gain)}".strip()
                            for m in metrics]
                         for v_name, v in data["variants"].items()]))


# --- sections: truth-aware decoding ----------------------------------------------------


def tad(page: Page) -> None:
    data = page.load("tad.json")
    page.add("## Truth-aware decoding", "")
    page.prose("`benchmarks/tad.py` runs prompts on a small local model with the guard off and "
               "on, and scores the answers against gold answers, never by veritype. Open-world "
               "sets hold facts the guard's knowledge base does not hold; closed-world sets are "
               "a sanity check whose facts it holds by construction. The unguarded loop is the "
               "baseline. Intervals are Wilson intervals.")
    page.source("tad.json", "python benchmarks/tad.py", data)
    page.add(f"Model: {data['model']['name']}; settings: "
             + ", ".join(f"{k} {v}" for k, v in data["settings"].items()
                         if not isinstance(v, list)) + ".", "")
    off = data["table"]["off"]
    on = data["table"]["on"]
    rows = []
    for s, meta in data["sets"].items():
        rows.append([s, meta["world"], meta["prompts"],
                     with_ci(off[s]["hallucination_rate"], off[s]["hallucination_rate_ci95"], pct),
                     with_ci(on[s]["hallucination_rate"], on[s]["hallucination_rate_ci95"], pct),
                     pct(on[s]["accuracy"]), pct(on[s]["guarded_rate"]),
                     with_ci(on[s]["hallucination_among_guarded"],
                             on[s]["hallucination_among_guarded_ci95"], pct),
                     pct(on[s]["unverified_rate"]), pct(on[s]["abstention_rate"])])
    page.add(*table(["set", "world", "prompts", "wrong, guard off", "wrong, guard on",
                     "right, guard on", "guarded", "wrong among guarded", "unverified",
                     "abstained"], rows))
    h = data["headline"]
    speed = h["speed"]["on"]
    page.add(*table(["open world, guard on", "value"], [
        ["wrong among answers presented as guarded",
         with_ci(h["open_world_hallucination_among_guarded"],
                 h["open_world_hallucination_among_guarded_ci95"], pct)],
        ["guarded / unverified / abstained",
         f"{pct(h['open_world_guarded'])} / {pct(h['open_world_unverified'])} / "
         f"{pct(h['open_world_abstained'])}"],
        ["decoded tokens/s lost to the guard",
         with_ci(speed["decode_tokens_per_s_overhead"],
                 speed["decode_tokens_per_s_overhead_ci95"], pct)],
        ["wall time per answer added",
         with_ci(speed["seconds_per_prompt_overhead"],
                 speed["seconds_per_prompt_overhead_ci95"], pct)],
    ]))
    page.add("Per-set tables: [Evaluation results](results.md#truth-aware-decoding-open-world).",
             "")
    page.headline("Truth-aware decoding, open world: wrong among guarded answers",
                  with_ci(h["open_world_hallucination_among_guarded"],
                          h["open_world_hallucination_among_guarded_ci95"], pct),
                  "truth-aware-decoding")


# --- sections: evaluation runs ------------------------------------------------------------


def _truthfulqa_row(h: dict[str, Any]) -> list[str]:
    return [
        f"precision {with_ci(h['precision'], [h['precision_ci_low'], h['precision_ci_high']])}, "
        f"recall {with_ci(h['recall'], [h['recall_ci_low'], h['recall_ci_high']])} "
        f"({h['configuration']}); {h['seeds']} split seeds {f3(h['seed_precision_mean'])} ± "
        f"{f3(h['seed_precision_sd'])} / {f3(h['seed_recall_mean'])} ± "
        f"{f3(h['seed_recall_sd'])}",
        f"verbatim substring {f3(h['verbatim_baseline_precision'])} / "
        f"{f3(h['verbatim_baseline_recall'])}",
        f"{f3(h['reference_precision'])} / {f3(h['reference_recall'])}",
    ]


def evaluation(page: Page) -> None:
    page.add("## Evaluation", "")
    page.prose("`veritype eval` runs one benchmark per command; `benchmarks/eval_results.py` "
               "copies each run into `benchmarks/results/eval_<name>.json` and its full report "
               "into [Evaluation results](results.md). Each headline below is judged by data, "
               "not by veritype, and has its trivial baseline beside it; thresholds and "
               "configurations are chosen on calibration data only. The `e2e` run is judged by "
               "veritype's own models and is self-consistency, not a headline.")
    rows = []
    for name in ("eval_corpus-qa.json", "eval_corpus-qa-local.json", "eval_truthfulqa-gen.json"):
        h = page.load(name)["headline"]
        rows.append([f"`{name}`", f"{h['questions']} questions, {h['generator']} drafts",
                     f"rendered right {headline_ci(h, 'rendered_accuracy_answered')} "
                     f"of the {pct(h['rendered_coverage'])} answered",
                     f"unverified drafts {headline_ci(h, 'draft_accuracy_answered')}",
                     "–"])
    for name in ("eval_truthfulqa.json", "eval_truthfulqa-reference.json",
                 "eval_truthfulqa-nli-large.json", "eval_truthfulqa-judge.json"):
        data = page.load(name)
        h = data["headline"]
        rows.append([f"`{name}`", f"{data['config']['protocol']} protocol, "
                                  f"{count(h['held_out_claims'])} held-out claims, views "
                                  f"{', '.join(data['config']['views'])}", *_truthfulqa_row(h)])
    data = page.load("eval_halueval.json")
    h = data["headline"]
    for task in data["config"]["tasks"]:
        verbatim = h[f"{task}_baseline_verbatim_substring_balanced_accuracy"]
        rows.append(["`eval_halueval.json`",
                     f"{task}, {count(h[f'{task}_examples'])} held-out rows",
                     f"balanced accuracy {headline_ci(h, f'{task}_balanced_accuracy')} "
                     f"({h[f'{task}_configuration_is']})",
                     f"verbatim substring {f3(verbatim)}; "
                     f"majority {f3(h[f'{task}_baseline_majority_class_accuracy'])} (accuracy)",
                     "–"])
    h = page.load("eval_scifact.json")["headline"]
    rows.append(["`eval_scifact.json`", f"{h['evaluation_claims']} held-out dev claims, "
                                        "retrieve, verify, cite",
                 f"label accuracy {headline_ci(h, 'label_accuracy')} "
                 f"({h['configuration_computes']})",
                 f"majority ({h['baseline_majority_label']}) "
                 f"{f3(h['baseline_majority_accuracy'])}; "
                 f"verbatim {f3(h['baseline_verbatim_accuracy'])}", "–"])
    h = page.load("eval_nli.json")["headline"]
    rows.append(["`eval_nli.json`", f"{h['sets']} NLI sets, {count(h['pairs'])} pairs",
                 "mean accuracy " + ", ".join(f"{k.removeprefix('mean_accuracy ')} {f3(v)}"
                                              for k, v in h.items()
                                              if k.startswith("mean_accuracy view:")
                                              or k == "mean_accuracy default"),
                 "–", "–"])
    page.add(*table(["file", "what", "veritype", "trivial baseline", "published"], rows))
    e2e = page.load("eval_e2e.json")["headline"]
    page.add(f"Self-consistency (`eval_e2e.json`, {e2e['questions']} questions, "
             f"{e2e['generator']} drafts, judged by veritype's own models): precision of "
             f"rendered claims {headline_ci(e2e, 'rendered_precision')} "
             f"against {headline_ci(e2e, 'raw_precision')} "
             f"for the raw drafts; {pct(e2e['abstained_share'])} abstained.", "")
    machines = sorted({machine({"machine": page.load(n)["machine"]}) for n in FILES
                       if n.startswith("eval_") and n != "eval_speed.json"})
    page.add("Machines of these runs: " + " | ".join(machines) + ".", "")
    for name in ("eval_truthfulqa-reference.json",):
        h = page.load(name)["headline"]
        page.headline("TruthfulQA claims, reference protocol: precision / recall",
                      f"{f3(h['precision'])} / {f3(h['recall'])}; published "
                      f"{f3(h['reference_precision'])} / {f3(h['reference_recall'])}",
                      "evaluation")

    data = page.load("eval_speed.json")
    page.add("### Evaluation speed", "")
    page.prose("The wall time of a full TruthfulQA evaluation with every view and report, "
               "against its target.")
    page.source("eval_speed.json", data["command"], {"cpus": data["cpus"]})
    page.add(*table(["engine", "best wall", "target", "met", "pairs/s"],
                    [[data["engine"], seconds(data["best_wall_seconds"]),
                      seconds(data["target_seconds"]), data["met"],
                      f1(data["pairs_per_second"])]]))
    stages = data["runs"][0]["stages"]
    page.add(*table(["stage", "seconds"], [[k, f"{v:.3f}"] for k, v in stages.items()]))


def stage_speed(page: Page) -> None:
    data = page.load("stage_speed.json")
    page.add("### Speed by stage, old and new revision", "")
    page.prose("`veritype check`, `verify`, `ask` and a TruthfulQA evaluation timed on an "
               "older revision and on a newer one, side by side on the same machine, with the "
               "time and the number of calls of each part in one recorded round of each.")
    page.source("stage_speed.json", None, data)
    page.add(f"Old revision: {data['old_revision']}; new revision: {data['new_revision']}; "
             f"rounds: {data['rounds']}; settings: "
             + ", ".join(f"{label(k)} {v}" for k, v in data["settings"].items()) + ".", "")
    page.add(*table(["stage", "old: median", "new: median", "speedup", "old rounds",
                     "new rounds"],
                    [[name, seconds(st["old_median_s"]), seconds(st["new_median_s"]),
                      f"{f2(st['speedup'])}×", ", ".join(seconds(x) for x in st["old_seconds"]),
                      ", ".join(seconds(x) for x in st["new_seconds"])]
                     for name, st in data["stages"].items()]))
    rows = []
    for name, st in data["stages"].items():
        old, new = st["old"].get("parts", {}), st["new"].get("parts", {})
        for part in list(old) + [p for p in new if p not in old]:
            rows.append([name, part] + [f"{seconds(side[part]['seconds'])} "
                                        f"({side[part]['calls']} calls)" if part in side
                                        else "–" for side in (old, new)])
    page.add(*table(["stage", "part", "old", "new"], rows))


# --- the page -------------------------------------------------------------------------------

SECTIONS: tuple[Callable[[Page], None], ...] = (
    first_run, ask_latency, corpus_qa, answer_corpora, answer_model_squad2, rag_rows,
    check_halueval, check_options, check_pool,
    answer_relevance, ingest, retrieval, vector_search, generation, load, verifier_models,
    default_aggregator, type_contract, judge, training, tad, evaluation, stage_speed,
)

FILES: tuple[str, ...] = (
    "first_run.json", "ask.json", "eval_corpus-qa.json", "eval_corpus-qa-local.json",
    "ask_corpora.json", "ask_corpora_baseline.json", "answer_corpora_evaluation.json",
    "answer_corpora_calibration.json", "answer_corpora_evaluation_llm.json",
    "answer_corpora_evaluation_reader.json", "answer_model_squad2.json", "rag_rows.json",
    "candidate_three_types/rag_rows.json",
    "rag_rows_judge.json",
    "check_halueval.json", "check_halueval_dialogue.json", "check_options.json",
    "check_pool.json",
    "answer_relevance.json",
    "ingest_scaling.json", "ingest_ray.json", "ingest_ray_scifact.json",
    "ingest_projection.json", "retrieval.json",
    "embedder.json", "vector_search.json", *VECTOR_SEARCH_1M, "generation.json", "load.json",
    "load_replicas.json", "verifier_quality.json", "verifier_speed.json", "determinism.json",
    "cpu_families.json",
    "long_evidence.json", "numeric_kinds.json", "calibrated_aggregator/fit_report.json",
    "candidate_three_types/fit_report.json", "aggregator_paraphrase/fit_report.json",
    "type_contract.json",
    "candidate_three_types/type_contract.json", "metamorphic.json",
    "candidate_three_types/metamorphic.json", "verify_throughput.json", "judge_quality.json",
    "judge_endpoint.json", "eval_truthfulqa-judge.json", "training_speed.json",
    "training_budget.json", "synthetic_ablation.json", "distillation_ablation.json", "tad.json",
    "eval_truthfulqa.json", "eval_truthfulqa-reference.json", "eval_truthfulqa-nli-large.json",
    "eval_truthfulqa-gen.json", "eval_halueval.json", "eval_scifact.json", "eval_nli.json",
    "eval_e2e.json", "eval_speed.json", "stage_speed.json",
)

INTRO = f"""# Benchmarks

<!-- written by {THIS} from benchmarks/results/*.json: do not edit by hand -->

Every figure veritype reports, with the command that measured it, the file under
`benchmarks/results/` that holds the run and the machine that file records. This page is
written by code from those files, so no figure on it is typed by hand. After a benchmark
writes a new result file, `python {THIS}` rewrites this page and its plots
(`--no-plots` rewrites the page alone, without matplotlib); a test fails while the committed
page differs from what it writes.

Intervals are 95% intervals: bootstrap intervals unless a section says Wilson. The full tables
and plots of every `veritype eval` run are in [Evaluation results](results.md). The table
below gathers the headline figures; each links to its section.
"""


def render(results: Path = RESULTS) -> str:
    """The page's Markdown, read from the result files in ``results``."""
    page = Page(results)
    for section in SECTIONS:
        section(page)
    missing = sorted(set(FILES) - set(page.read))
    if missing:
        raise RuntimeError(f"FILES names files no section reads: {', '.join(missing)}")
    unknown = [anchor for _, _, anchor in page.summary if anchor not in page.headings]
    if unknown:
        raise RuntimeError(f"the summary links to no heading: {', '.join(unknown)}")
    lines = [INTRO, "## At a glance", ""]
    lines += table(["what", "figure", "section"],
                   [[what, value, f"[{page.headings[anchor]}](#{anchor})"]
                    for what, value, anchor in page.summary])
    lines += page.lines
    lines += ["## Result files", ""]
    page.prose("Every file this page reads, the section that shows it and the time the file "
               "records for its run, where it records one.")
    lines += page.lines[-2:]
    lines += table(["file", "section", "run recorded"], [
        [f"`{name}`", f"[{page.headings[page.section_of(name)]}](#{page.section_of(name)})",
         page.load(name).get("created_at", "not recorded")]
        for name in FILES])
    text = "\n".join(lines)
    return text.rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--page", type=Path, default=PAGE)
    parser.add_argument("--results-page", type=Path, default=RESULTS_PAGE,
                        help="the Evaluation results page, written beside it")
    parser.add_argument("--images", type=Path, default=IMAGES)
    parser.add_argument("--no-plots", action="store_true", help="write the page alone")
    args = parser.parse_args(argv)
    args.page.write_text(render(args.results), encoding="utf-8")
    print(args.page)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import results_page

    args.results_page.write_text(results_page.render(args.results), encoding="utf-8")
    print(args.results_page)
    if not args.no_plots:
        from benchmarks_plots import write_plots

        for path in write_plots(args.results, args.images):
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
