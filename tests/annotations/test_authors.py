"""Authors: people who write attacks on the Write page. Their role, their runs (system human:NAME),
the blind queue that never serves them their own H*, and their figures against the study's votes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from annotations import Store, auth
from annotations.access import AdminSession, AnnotatorSession, AuthorSession, sign_in, writer
from annotations.aggregation import author_rows, open_items
from engine.api import (
    Prediction,
    author_of,
    author_system,
    authored_record,
    authored_run,
    check_edit,
    get_setup,
    label_after_edit,
)
from engine.attack.authored import AUTHORED_OPERATOR
from engine.core.errors import InputError
from engine.core.settings import Settings

P = "A man is playing a guitar on stage."
H = "A man is playing an instrument."


def prediction(hypothesis: str, probs: tuple[float, float, float]) -> Prediction:
    return Prediction(P, hypothesis, probs)


def submission(settings: Settings, author: str, hstar: str, setup: str = "E2E",
               probs: tuple[float, float, float] = (0.1, 0.7, 0.2), data_file: Path | None = None):
    """An author's run and record for ``hstar`` on (P, H), the victim answering ``probs`` on it."""
    chosen = get_setup(setup)
    run = authored_run(author, chosen, "offline", {"model": "tiny@sha256:0"}, data_file, "snli")
    record = authored_record(
        0, premise=P, hypothesis=H, gold_label="entailment", setup=chosen, hstar=hstar,
        original=prediction(H, (0.9, 0.05, 0.05)), adversarial=prediction(hstar, probs), queries=3,
        verdict=label_after_edit("entailment", H, hstar, settings), tries=[{"H*": hstar}])
    return run, record


def test_check_edit_says_in_one_line_why_an_h_star_cannot_be_asked() -> None:
    assert check_edit(H, "  A man is  playing music. ", 600) == "A man is playing music."
    for hstar, why in (("   ", "H* is empty"), ("a MAN is playing an instrument.", "H* is H unchanged"),
                       ("x" * 601, "H* has 601 characters; at most 600")):
        with pytest.raises(InputError, match=why) as caught:
            check_edit(H, hstar, 600)
        assert "\n" not in str(caught.value)


def test_an_authored_record_succeeds_only_when_the_victim_misses_the_intended_label(settings: Settings,
                                                                                  shared_data: Path) -> None:
    run, fooled = submission(settings, "wendy", "A person is playing an instrument.")
    assert author_of(run.config["system"]["name"]) == "wendy" and author_system("wendy") == "human:wendy"
    assert run.name == "human:wendy E2E offline typed" and run.data_path == "typed pairs"
    assert fooled.status == "success" and fooled.target_label == "entailment"
    assert fooled.adversarial_prediction == "neutral" and fooled.operators == (AUTHORED_OPERATOR,)
    assert fooled.trace["verdict"]["label"] == "entailment" and fooled.trace["intended"] == "entailment"
    assert fooled.derivation and fooled.derivation[0]["new"]  # the verifier's steps
    _, kept = submission(settings, "wendy", "A person is playing an instrument.", probs=(0.8, 0.1, 0.1))
    assert kept.status == "failed" and kept.adversarial_hypothesis == "A person is playing an instrument."
    on_file, _ = submission(settings, "wendy", "A person is playing an instrument.", data_file=shared_data / "snli_test.tsv")
    assert on_file.name == "human:wendy E2E offline snli_test.tsv" and on_file.config["data"]["sha256"]
    with pytest.raises(InputError, match="not for this H and H"):
        authored_record(0, premise=P, hypothesis=H, gold_label="entailment", setup=get_setup("E2E"), hstar="x",
                        original=prediction(H, (1, 0, 0)), adversarial=prediction("y", (0, 1, 0)), queries=1,
                        verdict=label_after_edit("entailment", H, "A person is playing an instrument.", settings))


def test_authors_write_into_their_own_run_and_never_judge_their_own_h_star(tmp_path: Path,
                                                                           settings: Settings) -> None:
    db = tmp_path / "authors.sqlite"
    settings = settings.with_overrides(db_path=db, annotations_gold_percent=0, annotations_k=2)
    with Store.open(db, settings) as store:
        tokens = {name: auth.add_annotator(store, name, role) for name, role in
                  (("wendy", "author"), ("ann", "annotator"), ("root", "admin"), ("xavi", "author"))}
        wendy, ann, root = (sign_in(store, n, tokens[n]) for n in ("wendy", "ann", "root"))
        assert type(wendy) is AuthorSession and type(ann) is AnnotatorSession and isinstance(root, AdminSession)
        with pytest.raises(auth.AuthError, match="only authors and admins"):
            writer(ann)
        run, record = submission(settings, "wendy", "A person is playing an instrument.")
        with pytest.raises(auth.AuthError, match="their own run"):
            sign_in(store, "xavi", tokens["xavi"]).submit_attack(run, record)  # type: ignore[attr-defined]
        first = writer(wendy).submit_attack(run, record)
        second = wendy.submit_attack(*submission(settings, "wendy", "A man is playing a guitar.",  # type: ignore[attr-defined]
                                                 probs=(0.8, 0.1, 0.1)))
        stored = store.attack(first)
        assert stored.run_name == run.name and stored.record.pair_index == 0
        assert store.attack(second).record.pair_index == 1 and store.attack(second).item_id is None  # not fooled
        assert store.run(run.name).system == "human:wendy"
        assert [a.id for a in wendy.authored()] == [second, first]  # type: ignore[attr-defined]
        # the one fooling H* is an item of the blind queue, served to others and never to its author
        assert stored.item_id is not None
        assert wendy.next_item() is None
        served = ann.next_item()
        assert served is not None and (served.premise, served.hypothesis) == (P, "A person is playing an instrument.")
        (open_item,) = open_items(store)
        assert open_item.can_vote == 2  # ann and xavi: wendy wrote it, root is an admin
        xavi = sign_in(store, "xavi", tokens["xavi"])
        assert xavi.next_item() == served  # another author judges it
        ann.submit(served.item_id, "entailment", "ok")
        xavi.submit(served.item_id, "entailment", "ok")
        (row,) = author_rows(store)
    assert (row.author, row.submitted, row.fooled, row.judged, row.verified, row.natural) == ("wendy", 2, 1, 1, 1, 1)
    assert row.verified_rate == 1.0 and row.committed == 1 and row.verdict_agreement == 1.0 and row.queries_mean == 3


def test_migration_5_keeps_people_and_votes_and_admits_authors(tmp_path: Path, settings: Settings,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A store written before authors existed (four annotation migrations, a vote on record) opens
    with everyone and their votes kept, and takes an author; an unknown role is still refused."""
    from annotations import schema
    from tests.annotations.test_annotations_store import make_record, start

    db = tmp_path / "old.sqlite"
    old = settings.with_overrides(db_path=db, annotations_k=1, annotations_gold_percent=0)
    monkeypatch.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:4])
    with Store.open(db, old) as store:
        store.record_attack(start(store), make_record(0))
        token = auth.add_annotator(store, "old", "annotator")
        with pytest.raises(sqlite3.IntegrityError):
            store.db.execute("INSERT INTO annotators (name, role, source, created_at) VALUES ('w', 'author', 'l', 'n')")
        person = sign_in(store, "old", token)
        item = person.next_item()
        assert item is not None
        person.submit(item.item_id, "contradiction", "odd")
    monkeypatch.undo()
    with Store.open(db, old) as store:
        assert schema.schema_version(store.db) == len(schema.MIGRATIONS) == 5
        assert sign_in(store, "old", token).annotator.role == "annotator"
        votes = store.db.query("SELECT a.name, j.label, j.fluency FROM judgments j JOIN annotators a "
                               "ON a.id = j.annotator_id")
        assert [tuple(v.values()) for v in votes] == [("old", "contradiction", "odd")]
        auth.add_annotator(store, "wendy", "author")
        with pytest.raises(sqlite3.IntegrityError):
            store.db.execute("INSERT INTO annotators (name, role, source, created_at) VALUES ('x', 'boss', 'l', 'n')")
