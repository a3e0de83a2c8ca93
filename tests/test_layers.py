"""The house rules of the import graph, read from the source with ``ast``: the runs store sits
beside ``engine.core`` below everything, the engine never reaches up to the annotation layer or the UI, the UI reaches the
engine through ``engine.api`` only, and only ``app/`` and ``pages/`` import streamlit."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from engine.core.settings import PROJECT_ROOT

# package -> top-level packages it must not import
FORBIDDEN = {
    "engine": {"annotations", "app", "pages", "streamlit"},
    "annotations": {"app", "pages", "streamlit"},
    "app": {"pages"},
}


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    roots = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_imports_stay_below_it(package: str) -> None:
    files = sorted((PROJECT_ROOT / package).rglob("*.py"))
    assert files, f"no modules found under {package}/"
    breaches = {str(f.relative_to(PROJECT_ROOT)): sorted(imported_roots(f) & FORBIDDEN[package]) for f in files}
    assert {f: roots for f, roots in breaches.items() if roots} == {}


def test_the_checker_sees_imports(tmp_path: Path) -> None:
    sample = tmp_path / "m.py"
    sample.write_text("import streamlit as st\nfrom annotations.store import Store\nfrom . import x\n")
    assert imported_roots(sample) == {"streamlit", "annotations"}


def test_operators_and_constraints_have_one_registry_each() -> None:
    from engine.constraints.chain import registered_constraints
    from engine.edits.operators import operator_names, registered_operators

    names = operator_names()
    assert len(names) == len(set(names)) == len(registered_operators())
    assert {"PredicateNegation", "SentenceNegation", "DoubleNegation", "AltLM", "Insertion", "Deletion"} <= set(names)
    assert [c.name for c in registered_constraints()][:2] == ["relation-guard", "premise-check"]


# -- no import cycles ------------------------------------------------------------------------------

CYCLE_PACKAGES = ("engine", "annotations")


def module_name(path: Path, root: Path = PROJECT_ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(packages: tuple[str, ...] = CYCLE_PACKAGES, root: Path = PROJECT_ROOT) -> dict[str, set[str]]:
    """Module -> the project modules it imports, at module level or inside a function (a lazy import
    hides a cycle from the interpreter, not from the design); imports under ``TYPE_CHECKING`` are
    left out. Importing ``a.b.c`` also runs the packages ``a`` and ``a.b``."""
    files = {module_name(p, root): p for package in packages for p in (root / package).rglob("*.py")}

    def owner(name: str) -> str | None:
        while name and name not in files:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for me, path in files.items():
        found: set[str] = set()
        package = me if path.name == "__init__.py" else me.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        type_only = {id(n) for node in ast.walk(tree)
                     if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
                     for body in node.body for n in ast.walk(body)}
        for node in ast.walk(tree):
            if id(node) in type_only:
                continue
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package
                    for _ in range(node.level - 1):
                        anchor = anchor.rpartition(".")[0]
                    base = f"{anchor}.{base}".strip(".")
                names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in files else base for alias in node.names]
            for name in names:
                target = owner(name)
                if target is None or target == me:
                    continue
                parts = target.split(".")
                found |= {".".join(parts[:k]) for k in range(1, len(parts) + 1)}
        graph[me] = {t for t in found if t in files and t != me and not me.startswith(t + ".")}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycles() -> None:
    graph = import_graph()
    assert "engine.parse.spacy_ud" in graph and "engine.store.store" in graph
    assert cycles(graph) == []


def folder_graph(graph: dict[str, set[str]], depth: int = 2) -> dict[str, set[str]]:
    """The import graph between folders (``engine.parse``, ``engine.lexicon``, ...): an edge where a
    module of one imports a module of the other."""
    folders: dict[str, set[str]] = {}
    for module, targets in graph.items():
        mine = ".".join(module.split(".")[:depth])
        for target in targets:
            theirs = ".".join(target.split(".")[:depth])
            if theirs != mine and target.count(".") >= depth - 1 and module.count(".") >= depth - 1:
                folders.setdefault(mine, set()).add(theirs)
    return folders


def test_no_folder_level_import_cycles() -> None:
    """Stages import down only: no two folders of engine/ import each other, however indirectly."""
    folders = folder_graph(import_graph(("engine",)))
    assert "engine.lexicon" in folders and "engine.attack" in folders
    assert cycles(folders) == []


def test_the_folder_graph_sees_a_cycle_through_two_folders(tmp_path: Path) -> None:
    for folder in ("a", "b"):
        (tmp_path / "pkg" / folder).mkdir(parents=True)
        (tmp_path / "pkg" / folder / "__init__.py").write_text("")
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "a" / "x.py").write_text("from pkg.b.y import g\n")
    (tmp_path / "pkg" / "b" / "y.py").write_text("def g():\n    from pkg.a import z\n")
    (tmp_path / "pkg" / "a" / "z.py").write_text("")
    graph = import_graph(("pkg",), tmp_path)
    assert cycles(graph) == [] and cycles(folder_graph(graph)) == [["pkg.a", "pkg.b"]]


def test_the_cycle_finder_sees_lazy_and_package_cycles(tmp_path: Path) -> None:
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "a.py").write_text("def f():\n    from pkg.sub.b import g\n")
    (tmp_path / "pkg" / "sub" / "__init__.py").write_text("from pkg.sub.b import g\n")
    (tmp_path / "pkg" / "sub" / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                                   "    from pkg import c\nfrom pkg.a import f\n")
    (tmp_path / "pkg" / "c.py").write_text("from pkg.sub import b\n")
    graph = import_graph(("pkg",), tmp_path)
    assert cycles(graph) == [["pkg.a", "pkg.sub", "pkg.sub.b"]]


def test_engine_is_one_folder_per_stage_and_each_says_what_goes_in_and_out() -> None:
    """No module sits loose in engine/ but the facade (one guess finds a stage: its folder), and every
    stage's docstring names its input and its output."""
    engine = PROJECT_ROOT / "engine"
    assert sorted(p.name for p in engine.glob("*.py")) == ["__init__.py", "__main__.py", "api.py"]
    missing = []
    for init in sorted(engine.glob("*/__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        if "In:" not in doc or "Out:" not in doc:
            missing.append(init.parent.name)
    assert missing == []


def test_only_the_command_line_imports_the_command_line() -> None:
    """The UI, the annotation layer and the engine's stages call the functions the CLI calls; none
    of them imports a CLI module (``python -m annotations`` and ``python -m engine`` aside)."""
    graph = import_graph(("engine", "annotations", "app", "pages"))
    allowed = {"engine.cli", "engine.__main__"}
    reaching = sorted(module for module, targets in graph.items()
                      if any(t == "engine.cli" or t.startswith("engine.cli.") for t in targets)
                      and not any(module == a or module.startswith(a + ".") for a in allowed))
    assert reaching == []


def test_attack_stages_do_not_import_the_probe_suites() -> None:
    """The attack's stages share logic with the probes through ``engine/logic`` (the laws, the
    formulas), never by importing a probe suite."""
    graph = import_graph(("engine",))
    stages = ("engine.parse", "engine.natlog", "engine.lexicon", "engine.edits", "engine.constraints",
              "engine.ranking", "engine.validity", "engine.attack", "engine.logic", "engine.core")
    reaching = sorted(module for module, targets in graph.items()
                      if module.startswith(stages) and any(t.startswith("engine.probes") for t in targets))
    assert reaching == []


def test_the_store_sits_beside_core() -> None:
    """``engine.store`` imports only ``engine.core`` and itself: every layer that persists can use it."""
    graph = import_graph(("engine",))
    reaching = {module: sorted(t for t in targets if not t.startswith(("engine.core", "engine.store")))
                for module, targets in graph.items() if module.startswith("engine.store")}
    assert {m: t for m, t in reaching.items() if t and t != ["engine"]} == {}


def _reads_configuration(path: Path) -> list[str]:
    """Where a module calls ``get_settings`` or imports it from ``engine.core.settings``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name == "get_settings":
                found.append(f"calls get_settings (line {node.lineno})")
        elif isinstance(node, ast.ImportFrom) and node.module == "engine.core.settings" and any(
                alias.name == "get_settings" for alias in node.names):
            found.append(f"imports get_settings from engine.core.settings (line {node.lineno})")
    return found


def test_only_the_edges_read_the_configuration() -> None:
    """The command line and ``engine.api`` read the configuration; every stage below gets its settings
    passed down (or uses the documented defaults, never the environment). The app, ``annotations``
    and ``bench/`` read it through ``engine.api``."""
    edges = {"engine/api.py", "engine/core/settings.py"}
    stages = {str(p.relative_to(PROJECT_ROOT)): _reads_configuration(p) for p in (PROJECT_ROOT / "engine").rglob("*.py")
              if not str(p.relative_to(PROJECT_ROOT)).startswith("engine/cli/")
              and str(p.relative_to(PROJECT_ROOT)) not in edges}
    assert {f: found for f, found in stages.items() if found} == {}
    above = {str(p.relative_to(PROJECT_ROOT)): [f for f in _reads_configuration(p) if f.startswith("imports")]
             for package in ("app", "pages", "annotations", "bench") for p in (PROJECT_ROOT / package).rglob("*.py")}
    assert {f: found for f, found in above.items() if found} == {}


def test_the_configuration_checker_sees_both_ways(tmp_path: Path) -> None:
    sample = tmp_path / "m.py"
    sample.write_text("from engine.core.settings import Settings, get_settings\n\ndef f():\n    return get_settings()\n")
    assert _reads_configuration(sample) == ["imports get_settings from engine.core.settings (line 1)",
                                            "calls get_settings (line 4)"]


# -- the UI sees the engine through engine.api ------------------------------------------------------

def _engine_imports_past_the_api(path: Path) -> list[str]:
    """Where a module imports from the engine other than through ``engine.api`` (``from engine import
    api`` included), at module level or inside a function: ``line N: from engine.x import y``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [alias.name for alias in node.names]
            if node.module == "engine":
                names = [name for name in names if name != "api"]
            elif not node.module.startswith("engine.") or node.module == "engine.api":
                continue
            if names:
                found.append((node.lineno, f"from {node.module} import {', '.join(names)}"))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, f"import {alias.name}") for alias in node.names
                      if alias.name.split(".")[0] == "engine" and alias.name != "engine.api"]
    return [f"line {line}: {text}" for line, text in sorted(found)]


def test_the_ui_imports_the_engine_only_through_its_api() -> None:
    """``app/`` and ``pages/`` use the paper's nouns as ``engine.api`` names them (parse, polarize,
    candidates, attack, verify, runs ...), never a stage's module: the stages can move underneath."""
    ui = {str(p.relative_to(PROJECT_ROOT)): _engine_imports_past_the_api(p)
          for package in ("app", "pages") for p in sorted((PROJECT_ROOT / package).rglob("*.py"))}
    assert len(ui) > 10
    assert {f: found for f, found in ui.items() if found} == {}


def test_the_api_checker_sees_every_way_past_the_api(tmp_path: Path) -> None:
    sample = tmp_path / "m.py"
    sample.write_text("from engine.api import parse\nfrom engine import api\nimport engine.api\n"
                      "from engine.parse import parse\nimport engine.store.jobs\nfrom engine import api, parse\n"
                      "import engine\nfrom annotations import Store\n\ndef f():\n    from engine.core.vocab import LABELS\n")
    assert _engine_imports_past_the_api(sample) == [
        "line 4: from engine.parse import parse", "line 5: import engine.store.jobs",
        "line 6: from engine import parse", "line 7: import engine", "line 11: from engine.core.vocab import LABELS"]
