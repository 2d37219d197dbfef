"""The layers hold: the core imports nothing above it, no lower layer imports a higher one,
and no modules import each other in a circle.

Imports are read from the source (module level and inside functions alike), so a lazy import
that crosses a layer or closes a circle fails here as surely as a top-level one.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "veritype"

# The formal model and its pure parts: claims, graph, typing, bounds, answers, aggregation.
CORE = frozenset({
    "veritype", "veritype._closing", "veritype._finite_verbs", "veritype._registry",
    "veritype._tables", "veritype._text", "veritype._verbatim", "veritype._verbs",
    "veritype.aggregate", "veritype.answer", "veritype.answers", "veritype.answers.question",
    "veritype.answers.reader", "veritype.answers.relevance", "veritype.answers.rendering",
    "veritype.answers.scoring", "veritype.answers.selection", "veritype.answers.siblings",
    "veritype.answers.sides", "veritype.answers.values",
    "veritype.bounds",
    "veritype.budget",
    "veritype.claims", "veritype.clauses", "veritype.deadline", "veritype.errors",
    "veritype.evidence", "veritype.graph",
    "veritype.settings",
    "veritype.thresholds", "veritype.verdicts", "veritype.verification",
})
# Each layer and the layers above it, which it must never import.
ABOVE = {
    "views": ("engine", "server", "evaluation", "checking", "cli", "store", "ingest"),
    "retrieval": ("engine", "server", "evaluation", "checking", "cli", "generation"),
    "store": ("engine", "server", "evaluation", "checking", "cli", "ingest", "generation"),
    "ingest": ("engine", "server", "evaluation", "checking", "cli", "generation"),
    "engine": ("server", "evaluation", "checking", "cli"),
    "generation": ("engine", "server", "evaluation", "checking", "cli"),
    "judges": ("engine", "server", "evaluation", "checking", "cli"),
    "models": ("engine", "server", "evaluation", "checking", "cli", "train"),
    "decoding": ("engine", "server", "evaluation", "checking", "cli"),
    "train": ("engine", "server", "cli"),
    "checking": ("server", "cli"),
    "evaluation": ("server", "cli"),
}


def module_name(path: Path, package: Path = PACKAGE) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path) -> set[str]:
    """Every veritype module ``path`` imports, at any depth of its code."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            # The package uses absolute imports only, which keeps this reading exact.
            assert node.level == 0, f"{path}: relative import of {node.module!r}"
            found.add(node.module or "")
    return found


def veritype_imports(path: Path) -> set[str]:
    return {name for name in imported(path) if name == "veritype" or name.startswith("veritype.")}


def in_core(name: str) -> bool:
    return name in CORE or name.startswith("veritype.aggregate.")


def test_the_core_imports_only_the_core() -> None:
    # The top-level package re-exports the public surface from every layer.
    checked = [path for path in sorted(PACKAGE.rglob("*.py"))
               if in_core(module_name(path)) and module_name(path) != "veritype"]
    assert {module_name(path) for path in checked} >= CORE - {"veritype"}
    for path in checked:
        outside = sorted(name for name in veritype_imports(path) if not in_core(name))
        assert not outside, f"{module_name(path)} imports {outside}, above the core"


@pytest.mark.parametrize("layer", sorted(ABOVE))
def test_no_layer_imports_a_layer_above_it(layer: str) -> None:
    forbidden = tuple(f"veritype.{name}" for name in ABOVE[layer])
    for path in sorted((PACKAGE / layer).rglob("*.py")):
        wrong = sorted(name for name in veritype_imports(path)
                       if any(name == f or name.startswith(f + ".") for f in forbidden))
        assert not wrong, f"{module_name(path)} imports {wrong}"


def test_only_command_modules_draw_on_the_terminal() -> None:
    # The library reports progress through veritype.progress; commands draw it.
    commands = {"veritype.cli", "veritype._cli", "veritype.__main__"}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = module_name(path)
        if name in commands or name.endswith(".commands"):
            continue
        terminal = sorted(module for module in imported(path)
                          if module.split(".")[0] in ("typer", "rich"))
        assert not terminal, f"{name} imports {terminal}"


def test_the_contract_notices_a_crossing(tmp_path: Path) -> None:
    source = tmp_path / "module.py"
    source.write_text("def f():\n    from veritype.server.app import create_app\n")
    assert veritype_imports(source) == {"veritype.server.app"}


def import_graph(package: Path) -> dict[str, set[str]]:
    """Each module of ``package`` and the modules of it that it imports, at any depth of its
    code: ``from a.b import c`` imports the module ``a.b.c`` where there is one, else ``a.b``."""
    paths = {module_name(path, package): path for path in sorted(package.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                targets.update(f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}"
                               in paths else node.module for alias in node.names)
        graph[name] = (targets & paths.keys()) - {name}
    return graph


def circles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The groups of modules that import each other, directly or through others."""
    reach: dict[str, set[str]] = {}
    for start in graph:
        seen: set[str] = set()
        todo = list(graph[start])
        while todo:
            name = todo.pop()
            if name not in seen:
                seen.add(name)
                todo.extend(graph[name])
        reach[start] = seen
    return {frozenset({name} | {other for other in reach[name] if name in reach[other]})
            for name in graph if name in reach[name]}


def test_no_modules_import_each_other() -> None:
    # A circle works only while one side imports the other lazily, and breaks as soon as
    # someone moves that import to the top; the shared piece belongs in a module of its own.
    found = sorted(sorted(circle) for circle in circles(import_graph(PACKAGE)))
    assert not found, f"modules that import each other: {found}"


def test_the_contract_notices_a_circle(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "reader.py").write_text("from pkg.files import NAME\n")
    (package / "files.py").write_text("def load():\n    from pkg import reader\n")
    (package / "apart.py").write_text("from pkg.files import load\n")
    assert circles(import_graph(package)) == {frozenset({"pkg.reader", "pkg.files"})}


# The answer path lives in one room, each part small enough to read at one sitting.
ANSWER_PATH_MAX_LINES = 450


def test_every_module_of_the_answer_path_stays_small() -> None:
    modules = sorted((PACKAGE / "answers").glob("*.py"))
    assert {m.stem for m in modules} >= {"question", "reader", "relevance", "rendering",
                                         "scoring", "selection"}
    long = {m.name: n for m in modules
            if (n := len(m.read_text(encoding="utf-8").splitlines())) > ANSWER_PATH_MAX_LINES}
    assert not long, f"split these answer-path modules: {long}"
