"""The Probes page under AppTest: admins only, a probe run from the page with progress, the
per-category scores, the suite's own tables, drill-down to items, and one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from annotations import Store, auth
from engine.core.settings import PROJECT_ROOT, get_settings
from tests.app.test_app_attack import signed_in as signed_in_page
from tests.tiny_models import build_tiny_classifier

PROBES = str(PROJECT_ROOT / "pages" / "probes.py")


@pytest.fixture()
def admin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("NATLOG_DB_PATH", str(tmp_path / "app.sqlite"))
    monkeypatch.setenv("NATLOG_DATA_DIR", str(tmp_path / "data"))
    get_settings.cache_clear()
    st.cache_resource.clear()
    with Store.open(tmp_path / "app.sqlite", get_settings()) as store:
        token = auth.add_annotator(store, "root", "admin")
    yield "root", token
    get_settings.cache_clear()
    st.cache_resource.clear()


def signed_in(name: str, token: str) -> AppTest:
    return signed_in_page(PROBES, name, token)


def test_probes_page_needs_an_admin(admin) -> None:
    app = AppTest.from_file(PROBES, default_timeout=60).run()
    assert not app.exception
    assert [b.label for b in app.button] == ["Sign in"]


def test_run_a_probe_from_the_page_and_drill_down(admin, tmp_path: Path) -> None:
    victim = build_tiny_classifier(tmp_path / "victim", bias=(0.0, 0.0, 3.0))
    app = signed_in(*admin)
    assert not app.exception
    assert any("No probe run yet" in i.value for i in app.info)
    app.selectbox(key="probe_suite").set_value("equivalence")
    app.number_input(key="probe_n").set_value(60)
    app.text_input(key="probe_victim").input(str(victim))
    app.button(key="FormSubmitter:probe-run-Run probe").click().run()
    assert not app.exception and not app.error
    assert "stored" in app.success[0].value
    metrics = {m.label: m.value for m in app.metric}
    assert int(metrics["Items"]) >= 60
    assert app.dataframe[0].value.index.name == "run" and app.dataframe[1].value.index.name == "category"
    # The tiny victim says contradiction everywhere: an equivalence is never recognised.
    assert any("Both directions" in s.value for s in app.subheader)
    category = app.selectbox(key="probe_category").options[1]
    app.selectbox(key="probe_category").set_value(category).run()
    items = app.dataframe[-1].value
    assert set(items["category"]) == {category}
    assert set(items["predicted"]) == {"contradiction"}
    app.checkbox(key="probe_wrong").check().run()
    assert not (app.dataframe[-1].value["gold"] == "contradiction").any()


def test_a_data_path_outside_the_data_folders_is_refused(admin, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.jsonl"
    outside.write_text("{}\n", encoding="utf-8")
    app = signed_in(*admin)
    app.selectbox(key="probe_suite").set_value("equivalence")
    app.text_input(key="probe_data").input(str(outside))
    app.button(key="FormSubmitter:probe-run-Run probe").click().run()
    assert not app.exception
    assert "not inside the data folders" in app.error[0].value
