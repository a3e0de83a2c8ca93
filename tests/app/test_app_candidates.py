"""The candidates page under AppTest: real parse, WordNet, SmolLM2 ranking."""

from __future__ import annotations

import math

from streamlit.testing.v1 import AppTest

from engine.core.settings import PROJECT_ROOT, get_settings

PAGE = str(PROJECT_ROOT / "pages" / "candidates.py")


def generate(hypothesis: str, label: str) -> AppTest:
    app = AppTest.from_file(PAGE, default_timeout=300).run()
    app.text_input(key="cand_hypothesis").input(hypothesis)
    app.selectbox(key="cand_label").set_value(label)
    app.number_input(key="cand_top").set_value(40)
    app.button[0].click()
    return app.run()


def test_hypernyms_of_bird_rank_for_e2e() -> None:
    app = generate("A goose is a large bird", "entailment")
    assert not app.exception and not app.error
    e2e = app.dataframe[0].value  # first tab: E2E
    hyper = e2e[e2e["operator"] == "PerturbHyper"]
    assert not hyper.empty
    assert hyper["old → new"].str.startswith("bird →").any()
    assert set(e2e["H → H*"]) <= {"≡ equivalence", "⊏ forward"}
    assert list(e2e["score"]) == sorted(e2e["score"])  # ranked by perplexity, best first
    # The chosen derivation names the sense of the substituted word, with its WordNet gloss, and
    # the caption counts what each constraint dropped.
    shown = " ".join(m.value for m in app.markdown)
    assert "in this context:" in shown
    assert any("Dropped by the constraints" in c.value or "dropped by the constraints" in c.value for c in app.caption)


def test_downward_subject_gets_hyponyms_not_hypernyms() -> None:
    app = generate("No dog barked", "entailment")
    assert not app.exception
    e2e = app.dataframe[0].value
    on_dog = e2e[e2e["old → new"].str.startswith("dog →")]
    assert (on_dog["operator"] == "PerturbHypo").any()
    assert not (on_dog["operator"] == "PerturbHyper").any()


def test_bad_hypothesis_is_a_clear_error() -> None:
    app = generate("Two sentences. Here.", "entailment")
    assert not app.exception
    assert "expected one sentence" in app.error[0].value


def test_with_a_premise_each_candidate_has_a_validity_estimate() -> None:
    """Given P, the page estimates every candidate, lists those under min_validity apart, and the
    chosen derivation says what moved its estimate."""
    app = AppTest.from_file(PAGE, default_timeout=300).run()
    app.text_input(key="cand_premise").input("A goose is standing on the grass near a pond.")
    app.text_input(key="cand_hypothesis").input("A goose is a large bird")
    app.selectbox(key="cand_label").set_value("entailment")
    app.number_input(key="cand_top").set_value(40)
    app.button[0].click()
    app = app.run()
    assert not app.exception and not app.error
    e2e = app.dataframe[0].value
    floor = get_settings().min_validity
    assert not e2e.empty and e2e["validity"].notna().all() and (e2e["validity"] >= floor).all()
    shown = " ".join(m.value for m in app.markdown)
    assert "validity estimate **" in shown and "what moved it most" in shown
    # Asked in the attack's order: fluency weighed against the natural estimate (validity_weight),
    # those under natural_floor last (the verb swaps of a round come after its other candidates).
    settings = get_settings()
    assert e2e["natural"].notna().all()
    late = list(e2e["natural"] < settings.natural_floor)
    assert late == sorted(late)
    assert [why.startswith("last resort") for why in e2e["asked because"]] == late
    first = e2e[~e2e["natural"].lt(settings.natural_floor)]
    order = [math.log(p) - settings.validity_weight * math.log(v) for p, v in zip(first["score"], first["natural"])]
    assert all(a <= b + 1e-3 for a, b in zip(order, order[1:]))  # the table rounds score and estimate


def test_the_page_the_command_line_and_the_search_list_one_round(capsys, tmp_path) -> None:
    """One pair through all three: ``engine candidates --json``, the Candidates page and the first
    round of the search give the same candidates in the same order, each with its validity estimate
    (the round's gate, the natural order, verb swaps last: one pipeline, ``propose``)."""
    import json

    from engine.api import Target, get_settings, get_setup, load_victim, start_search
    from engine.cli import main
    from tests.attacking import attack_of
    from tests.tiny_models import build_tiny_classifier

    premise, hypothesis = "A goose is standing on the grass near a pond.", "A goose is a large bird"
    assert main(["candidates", "--premise", premise, "--hypothesis", hypothesis, "--label", "entailment",
                 "--setup", "E2E", "--top", "40", "--no-alt-lm", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed and all("validity" in c and "naturalness" in c for c in listed)

    app = AppTest.from_file(PAGE, default_timeout=300).run()
    app.text_input(key="cand_premise").input(premise)
    app.text_input(key="cand_hypothesis").input(hypothesis)
    app.selectbox(key="cand_label").set_value("entailment")
    app.number_input(key="cand_top").set_value(40)
    app.button[0].click()
    app = app.run()
    assert not app.exception and not app.error
    page = app.dataframe[0].value  # the E2E tab

    settings = get_settings()
    says_entailment = load_victim(str(build_tiny_classifier(tmp_path / "victim", bias=(3.0, 0.0, 0.0))),
                                  settings=settings)
    search = start_search(attack_of(settings.with_overrides(top_k=40)),
                          Target.of(premise, hypothesis, "entailment", get_setup("E2E")), says_entailment)
    first = search.step()
    asked = [c.text for c in first.candidates]

    assert [c["text"] for c in listed] == list(page["H*"]) == asked
    assert [round(c["validity"], 2) for c in listed] == [round(v, 2) for v in page["validity"]]
    assert [round(c["validity"], 2) for c in listed] == [round(c.validity or -1, 2) for c in first.candidates]
