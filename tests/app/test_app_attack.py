"""The attack stepper and results pages under AppTest, with a tiny real victim and a real store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from annotations import Store, auth
from engine.core.settings import PROJECT_ROOT, get_settings
from tests.tiny_models import build_tiny_classifier

ATTACK = str(PROJECT_ROOT / "pages" / "attack.py")
RESULTS = str(PROJECT_ROOT / "pages" / "results.py")


@pytest.fixture()
def admin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A fresh store with one admin; small budget and list so a round is quick."""
    monkeypatch.setenv("NATLOG_DB_PATH", str(tmp_path / "app.sqlite"))
    monkeypatch.setenv("NATLOG_QUERY_BUDGET", "12")
    monkeypatch.setenv("NATLOG_TOP_K", "8")
    get_settings.cache_clear()
    st.cache_resource.clear()
    with Store.open(tmp_path / "app.sqlite", get_settings()) as store:
        token = auth.add_annotator(store, "root", "admin")
    yield "root", token
    get_settings.cache_clear()
    st.cache_resource.clear()


def signed_in(page: str, name: str, token: str) -> AppTest:
    app = AppTest.from_file(page, default_timeout=300).run()
    app.text_input[0].input(name)
    app.text_input[1].input(token)
    return app.button[0].click().run()


def start_typed_attack(app: AppTest, victim: Path) -> None:
    """Start an E2E attack on a typed entailment pair with ``victim``, AltLM off."""
    app.radio(key="pair_source").set_value("Type a pair").run()
    app.text_area(key="premise").input("A man is playing a guitar on stage.")
    app.text_input(key="hypothesis").input("A man is playing a guitar.")
    app.selectbox(key="gold").set_value("entailment")
    app.text_input(key="victim").input(str(victim))
    app.toggle(key="alt_lm").set_value(False)
    app.run()
    next(b for b in app.button if b.label == "Start attack").click().run()


def test_attack_page_needs_an_admin(admin) -> None:
    app = AppTest.from_file(ATTACK, default_timeout=60).run()
    assert not app.exception
    assert [b.label for b in app.button] == ["Sign in"]  # nothing of the attack is shown


def test_stepper_runs_a_round_on_a_typed_pair(admin, tmp_path: Path) -> None:
    # The tiny victim answers "entailment" on every input, so E2E never succeeds and each
    # round is exhausted: the search keeps stepping until the 12-query budget is spent.
    victim = build_tiny_classifier(tmp_path / "victim", bias=(5.0, 0.0, 0.0))
    app = signed_in(ATTACK, *admin)
    start_typed_attack(app, victim)
    assert not app.exception, app.exception
    assert not app.error
    next(b for b in app.button if b.label == "Next round").click().run()
    assert not app.exception, app.exception
    queries = next(m for m in app.metric if m.label == "Queries").value
    used = int(queries.split(" / ")[0])
    assert 1 < used <= 12
    rounds = app.dataframe[0].value
    assert (rounds["operator"] != "").all() and rounds["H → H*"].isin(["≡", "⊏"]).all()
    assert not rounds.isna().any().any()  # candidates not asked read "—" / "not asked", never None
    unasked = rounds[rounds["victim"] == "not asked"]
    assert (unasked["P(entailment)"] == "—").all()
    next(b for b in app.button if b.label == "Run to the end").click().run()
    assert next(m for m in app.metric if m.label == "Status").value == "failed"
    assert "failed (budget)" in app.error[0].value
    assert next(m for m in app.metric if m.label == "Queries").value == "12 / 12"
    assert not [b for b in app.button if b.label == "Stop"]  # the attack has ended: no Stop, no next round
    assert next(b for b in app.button if b.label == "Next round").disabled


def test_stepper_says_when_a_round_pauses(admin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``round_patience`` a round that stops lowering P(target) pauses, and the stepper says so
    and how many of its candidates wait."""
    monkeypatch.setenv("NATLOG_ROUND_PATIENCE", "1")
    get_settings.cache_clear()
    victim = build_tiny_classifier(tmp_path / "victim", bias=(5.0, 0.0, 0.0))
    app = signed_in(ATTACK, *admin)
    start_typed_attack(app, victim)
    next(b for b in app.button if b.label == "Next round").click().run()
    assert not app.exception, app.exception
    assert "Round 1: paused" in app.expander[0].label
    (paused,) = [c.value for c in app.caption if c.value.startswith("Paused:")]
    asked, ranked = (int(n) for n in app.expander[0].label.split("—")[1].split(" candidates")[0].split(" of "))
    assert asked < ranked and f"the {ranked - asked} not asked" in paused


def test_bad_victim_and_empty_premise_are_clear_errors(admin, tmp_path: Path) -> None:
    victim = build_tiny_classifier(tmp_path / "victim")
    app = signed_in(ATTACK, *admin)
    app.radio(key="pair_source").set_value("Type a pair").run()
    app.text_input(key="victim").input(str(tmp_path / "missing-model"))
    app.toggle(key="alt_lm").set_value(False)
    app.run()
    next(b for b in app.button if b.label == "Start attack").click().run()
    assert not app.exception
    assert r"missing\-model" in app.error[0].value  # escaped for markdown
    app.text_input(key="victim").input(str(victim)).run()
    app.text_area(key="premise").input("").run()
    assert not app.exception and [e.value for e in app.error] == ["Type a premise and a hypothesis."]
    assert next(b for b in app.button if b.label == "Start attack").disabled  # nothing to start from


def test_results_page_without_runs(admin) -> None:
    app = signed_in(RESULTS, *admin)
    assert not app.exception
    assert "No attack run yet" in app.info[0].value


def test_results_page_shows_runs_and_breakdowns(admin) -> None:
    from tests.annotations.test_annotations_store import make_record, start

    with Store.open(settings=get_settings()) as store:
        run = start(store, "e2c-run")
        failing = {"status": "fails", "relations": "≡", "label": "entailment", "reason": "verify gives ≡"}
        store.record_attack(run, make_record(0, operators=("AddNeg", "PerturbHyper"), polarity="↑↓",
                                             trace={"self_check": failing}))
        store.record_attack(run, make_record(1, operators=("AddNeg",), polarity="↑"))
        store.record_attack(run, make_record(2, "failed", operators=()))
        assert [c["status"] for c in store.self_checks()] == ["fails", None]
    app = signed_in(RESULTS, *admin)
    assert not app.exception and not app.error
    runs, pivot, checks, failing_table, operators, polarity, recipe = (frame.value for frame in app.dataframe)
    assert recipe.loc["top_k", "value"] == "100"  # the run's stored recipe, field by field
    # The self-check table counts each successful attack by the verifier's verdict on H -> H*.
    assert checks.loc["e2c-run"].to_dict() == {"fails": 1, "not checked": 1}
    assert failing_table["relations"].tolist() == ["≡"]
    failing_id = int(failing_table.index[0])
    assert any(f"Open attack {failing_id} in the stepper" in m.value for m in app.markdown)  # one click away
    assert runs.loc["e2c-run", "successful"] == 2 and runs.loc["e2c-run", "asr"] == "0.667"
    assert list(pivot.index) == ["E2C"] and pivot.iloc[0].tolist()[0] == "0.667"  # the paper table's ASR
    assert {b.label for b in app.get("download_button")} >= {"Download CSV", "Download LaTeX"}
    assert len(app.get("plotly_chart")) >= 2  # ASR/HVASR bars and the QN violins
    assert {m.label: m.value for m in app.metric}["Judged successful attacks"] == "0 / 2"
    assert operators["successful"].to_dict() == {"AddNeg": 2, "PerturbHyper": 1}
    assert polarity["successful"].to_dict() == {"↑": 2, "↓": 1}
    # Another run's recipe, compared field by field.
    with Store.open(settings=get_settings()) as store:
        store.start_run("other-run", "E2C", "offline", "data.tsv", "snli", 13, {"top_k": 5})
    app.run()
    app.selectbox(key="recipe_other").select("other-run").run()
    diff = app.dataframe[-1].value
    assert diff.loc["top_k"].tolist() == ["100", "5"] and list(diff.index) == ["top_k"]


def test_results_put_a_peer_system_beside_natlog_in_three_readings(admin) -> None:
    """A NatLog run and a PWWS run on the same pairs, judged: the runs table names each system, the
    paper table has a block per system, and HVASR shows in its three readings; the per-operator table
    and chart show each operator's ASR contribution, valid and natural shares and QN, its name escaped
    in the chart."""
    from annotations.assignment import submit
    from tests.annotations.test_annotations_store import make_record, start

    with Store.open(settings=get_settings()) as store:
        natlog = start(store, "nl", setup="E2C")
        peer = store.start_run("nl-pwws", "E2C", "offline", "snli_test.tsv", "snli", 13,
                               {"system": {"name": "PWWS", "version": "0.3.11"}}).id
        operators = {0: ("<b>Neg</b>",), 1: ("<b>Neg</b>", "hypernym")}
        attacks = [store.record_attack(run, make_record(k, operators=operators[k])) for run in (natlog, peer)
                   for k in range(2)]
        items = {a.id: a.item_id for a in store.attacks()}
        voters = []
        for name in "ABC":
            auth.add_annotator(store, name)
            voters.append(next(store.db.query("SELECT id FROM annotators WHERE name = ?", [name]))["id"])
        for attack in attacks:
            # Every PWWS H* is read as broken English by all three; NatLog's second as odd by two of three.
            levels = ("broken",) * 3 if attack in attacks[2:] else ("ok", "odd", "odd") if attack == attacks[1] else ("ok",) * 3
            for voter, level in zip(voters, levels):
                submit(store, voter, items[attack], "contradiction", level, source="import")
    app = signed_in(RESULTS, *admin)
    assert not app.exception and not app.error
    runs, pivot = app.dataframe[0].value, next(f.value for f in app.dataframe if f.value.index.name == "setup")
    assert runs.loc["nl", "system"] == "NatLog" and runs.loc["nl-pwws", "system"] == "PWWS"
    assert runs.loc["nl-pwws", "hvasr"] == "1.000" and runs.loc["nl-pwws", "hvasr_fluent"] == "0.000"
    assert runs.loc["nl", "hvasr_fluent"] == "1.000"
    assert runs.loc["nl", "hvasr_natural"] == "0.500" and runs.loc["nl-pwws", "hvasr_natural"] == "0.000"
    blocks = list(dict.fromkeys(c[:-1] for c in pivot.columns))
    assert [b[0] for b in blocks] == ["NatLog", "PWWS"]
    assert pivot.loc["E2C", ("PWWS", "offline", "snli_test.tsv", "hvasr_fluent")] == "0.000"
    assert any("Attack systems side by side" in str(c.proto.spec) for c in app.get("plotly_chart"))
    # Per operator, for the run chosen below (nl): both attacks used <b>Neg</b>, the second also hypernym.
    parts = next(f.value for f in app.dataframe if "asr_contribution" in f.value.columns and "<b>Neg</b>" in f.value.index)
    assert parts.loc["<b>Neg</b>", ["asr_contribution", "valid_share", "natural_share"]].tolist() == [
        "1.000", "1.000", "0.500"]
    assert parts.loc["hypernym", ["asr_contribution", "valid_share", "natural_share"]].tolist() == [
        "0.500", "1.000", "0.000"]
    chart = next(json.loads(c.proto.spec) for c in app.get("plotly_chart") if "nl: by operator" in c.proto.spec)
    ticks = {x for trace in chart["data"] for x in trace["x"]}
    assert ticks == {"&lt;b&gt;Neg&lt;/b&gt;", "hypernym"}  # plotly shows the entities as the characters


def shared_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Make ``tmp_path/shared`` the data folder the stepper may read."""
    folder = tmp_path / "shared"
    folder.mkdir(exist_ok=True)
    monkeypatch.setenv("NATLOG_SHARED_DATA_DIR", str(folder))
    get_settings.cache_clear()
    st.cache_resource.clear()
    return folder


def test_data_file_text_is_shown_as_text(admin, tmp_path: Path, monkeypatch) -> None:
    """A data file's premise with a markdown image and an HTML tag is shown as the text it is."""
    data = shared_folder(tmp_path, monkeypatch) / "pairs.tsv"
    data.write_text("1\tA man ![x](http://127.0.0.1/x.png) plays.\tA man <img src=x onerror=alert(1)> plays.\t"
                    "ENTAILMENT\n", encoding="utf-8")
    app = signed_in(ATTACK, *admin)
    app.text_input(key="data_file").input(str(data))
    app.selectbox(key="data_format").set_value("tsv")
    app.run()
    assert not app.exception and not app.error
    shown = next(m.value for m in app.markdown if "**P:**" in m.value)
    assert "![x](" not in shown and r"\!\[x\]\(http" in shown
    assert "<" not in shown.replace("\\<", "") and r"\<img src\=x onerror\=alert\(1\)\>" in shown


CONFIDENCE = str(PROJECT_ROOT / "pages" / "confidence.py")


def test_confidence_explorer_and_the_way_to_the_stepper(admin, tmp_path: Path, attack, contradictions) -> None:
    """A run of real attacks: the explorer shows its candidates grouped and one attack's path, links
    to the stepper, and the stepper opened from the link holds that attack's pair."""
    from engine.natlog.setups import get_setup
    from engine.runs.runner import RunHooks, RunSpec, run_attacks
    from engine.victim.model import load_victim

    victim_dir = build_tiny_classifier(tmp_path / "victim", bias=(0.0, 0.0, 3.0))
    data = tmp_path / "pairs.tsv"
    pair = contradictions[0]
    hypothesis = pair.hypothesis.rstrip(".") + " *now*"  # markdown in the data stays text
    data.write_text(f"1\t{pair.premise}\t{hypothesis}\tCONTRADICTION\n", encoding="utf-8")
    settings = get_settings()
    with Store.open(settings=settings) as store:
        run_attacks(store, RunSpec("c2c-run", data, "tsv", get_setup("C2C"), str(victim_dir)), attack,
                    load_victim(str(victim_dir), settings=settings), hooks=RunHooks(progress=False))
        attack_id = store.attacks()[0].id
    app = signed_in(CONFIDENCE, *admin)
    assert not app.exception, app.exception
    metrics = {m.label: m.value for m in app.metric}
    assert int(metrics["Candidates queried"]) >= 2 and metrics["Attacks"] == "1"
    groups = app.dataframe[0].value
    assert groups["points"].sum() == int(metrics["Candidates queried"])
    shown = " ".join(m.value for m in app.markdown)
    assert r"\*now\*" in shown and f"(attack?attack={attack_id})" in shown
    path = app.dataframe[-1].value
    assert path["step"].tolist()[0] == 0 and path["hypothesis"].tolist()[0] == hypothesis
    app.multiselect(key="f_setup").set_value(["C2C"]).run()
    app.radio(key="f_success").set_value("successful").run()
    assert not app.exception and "No candidate matches" in app.warning[0].value

    stepper = AppTest.from_file(ATTACK, default_timeout=300)
    stepper.query_params["attack"] = str(attack_id)
    stepper.run()
    stepper.text_input[0].input(admin[0])
    stepper.text_input[1].input(admin[1])
    stepper.button[0].click().run()
    assert not stepper.exception
    assert stepper.text_input(key="hypothesis").value == hypothesis
    assert stepper.selectbox(key="setup").value == "C2C" and stepper.text_input(key="victim").value == str(victim_dir)
    assert any(f"Opened attack {attack_id}" in i.value for i in stepper.info)


def test_a_data_file_that_is_not_utf8_is_one_line_error(admin, tmp_path: Path, monkeypatch) -> None:
    data = shared_folder(tmp_path, monkeypatch) / "latin1.tsv"
    data.write_bytes("1\tCafé crème.\tA drink.\tENTAILMENT\n".encode("latin-1"))
    app = signed_in(ATTACK, *admin)
    app.text_input(key="data_file").input(str(data)).run()
    assert not app.exception
    (error,) = app.error
    assert "not UTF\\-8 text \\(line 1 has byte 0xe9\\)" in error.value and "Traceback" not in error.value


RUNS = str(PROJECT_ROOT / "pages" / "runs.py")


def test_runs_page_queues_one_run_per_setup_and_cancels(admin, tmp_path: Path, monkeypatch) -> None:
    """Queueing from the page writes jobs to the store and starts the worker (recorded here); a
    queued job is cancelled from its row; uploads land in the uploads folder only."""
    from engine import api
    from engine.store import jobs

    started: list[Path] = []
    monkeypatch.setattr(api, "spawn_worker", lambda db: started.append(db) or True)  # the page calls it through the api
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "pairs.tsv").write_text("1\tA man sleeps.\tA man rests.\tENTAILMENT\n", encoding="utf-8")
    monkeypatch.setenv("NATLOG_SHARED_DATA_DIR", str(shared))
    monkeypatch.setenv("NATLOG_DATA_DIR", str(tmp_path / "var"))
    get_settings.cache_clear()
    st.cache_resource.clear()
    app = signed_in(RUNS, *admin)
    assert not app.exception, app.exception
    assert app.selectbox(key="run_file").value == str(shared / "pairs.tsv")
    app.multiselect(key="run_setups").set_value(["E2C", "E2N"])
    app.number_input(key="run_limit").set_value(3)
    next(b for b in app.button if b.label == "Queue runs").click().run()
    assert not app.exception and not app.error
    assert "Queued 2 run(s)" in app.success[0].value and started == [get_settings().db_path]
    with Store.open(settings=get_settings()) as store:
        queued = jobs.jobs(store)
    assert sorted(j.spec["setup"] for j in queued) == ["E2C", "E2N"] and {j.status for j in queued} == {"queued"}
    assert queued[0].spec["data"] == str((shared / "pairs.tsv").resolve()) and queued[0].spec["limit"] == 3
    next(b for b in app.button if b.label == "Cancel").click().run()
    with Store.open(settings=get_settings()) as store:
        assert sorted(j.status for j in jobs.jobs(store)) == ["cancelled", "queued"]
    # Queueing the same runs again is refused while one of them is still queued, in one line.
    next(b for b in app.button if b.label == "Queue runs").click().run()
    assert "already queued or running" in app.error[0].value
    # A profile of the victim for its report card, with the same file and sample.
    app.multiselect(key="profile_setups").set_value(["E2E"])
    app.text_input(key="profile_name").input("card")
    app.button(key="queue_profile").click().run()
    assert not app.exception and any("Queued profile card" in s.value for s in app.success)
    with Store.open(settings=get_settings()) as store:
        (profile,) = [j for j in jobs.jobs(store) if j.kind == "profile"]
    assert profile.run_name == "card" and profile.spec["setups"] == "E2E" and profile.spec["budget"] == 5
    # The repair loop: a missing data file is one line, nothing queued; then the loop as one job.
    app.text_area(key="repair_mine").input("nope.tsv,format=tsv")
    app.text_area(key="repair_held").input("pairs.tsv,format=tsv,limit=1")
    app.button(key="queue_repair").click().run()
    assert not app.exception and r"no such data file \(mine\)" in app.error[0].value  # escaped as markdown
    app.text_area(key="repair_mine").input("pairs.tsv,format=tsv,split=TRAIN")
    app.text_input(key="repair_name").input("fix-<b>it</b>")
    app.button(key="queue_repair").click().run()
    assert not app.exception and not app.error, [e.value for e in app.error]
    assert any(r"Queued the repair loop fix\-\<b\>it\<\/b\>;" in s.value for s in app.success)  # escaped
    with Store.open(settings=get_settings()) as store:
        (repair,) = [j for j in jobs.jobs(store) if j.kind == "repair"]
    assert repair.run_name == "fix-<b>it</b>" and repair.spec["mine"] == ["pairs.tsv,format=tsv,split=TRAIN"]
    assert repair.spec["setups"] == "E2E,C2C,N2N" and repair.spec["min_validity"] == 0.5


def test_the_stepper_reads_only_the_data_folders(admin, tmp_path: Path, monkeypatch) -> None:
    shared_folder(tmp_path, monkeypatch)
    outside = tmp_path / "elsewhere.tsv"
    outside.write_text("1\tA man sleeps.\tA man rests.\tENTAILMENT\n", encoding="utf-8")
    app = signed_in(ATTACK, *admin)
    for path in (str(outside), str(tmp_path / "shared" / ".." / "elsewhere.tsv"), "/etc/passwd"):
        app.text_input(key="data_file").input(path).run()
        assert not app.exception
        assert "not inside the data folders" in app.error[0].value
        assert not [m for m in app.markdown if "**P:**" in m.value]
