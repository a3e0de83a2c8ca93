"""The house rules of the import graph, read from the source with ``ast``: the runs store is below
everything, the engine never reaches up to the annotation layer or the UI, and only ``app/`` and
``pages/`` import streamlit."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from engine.settings import PROJECT_ROOT

# package -> top-level packages it must not import
FORBIDDEN = {
    "runstore": {"engine", "annotations", "app", "pages", "streamlit"},
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
    from engine.constraints import registered_constraints
    from engine.operators import operator_names, registered_operators

    names = operator_names()
    assert len(names) == len(set(names)) == len(registered_operators())
    assert {"PredicateNegation", "SentenceNegation", "DoubleNegation", "AltLM", "Insertion", "Deletion"} <= set(names)
    assert [c.name for c in registered_constraints()][:2] == ["relation-guard", "premise-check"]
