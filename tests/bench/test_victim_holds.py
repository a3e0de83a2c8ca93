"""The victim-holds probe's rewrites, on real parses: the existential of an indefinite subject's
clause, P's predicate, and a bad setup refused in one line."""

from __future__ import annotations

from pathlib import Path

from bench import victim_holds


def test_an_indefinite_subject_becomes_an_existential_and_a_definite_one_does_not(settings) -> None:
    assert victim_holds.existential("A girl is sleeping in bed.", settings) == "There is a girl sleeping in bed."
    assert victim_holds.existential("A bird flies", settings) == "There is a bird who flies."
    assert victim_holds.existential("Two men are playing soccer in the field.", settings) == (
        "There are two men playing soccer in the field.")
    assert victim_holds.existential("The man is sleeping.", settings) is None


def test_the_premise_predicate_of_a_clause_and_of_a_caption_fragment(settings) -> None:
    assert victim_holds.premise_predicate("Two men are pouring concrete onto another truck.", settings) == (
        "are pouring concrete onto another truck")
    assert victim_holds.premise_predicate("A man driving a buggy down a street.", settings) == (
        "driving a buggy down a street")
    assert victim_holds.conjoined("Person in yellow T-shirt is sleeping.", "A person is dancing at a rave.",
                                  settings) == (
        "A person is dancing at a rave and is sleeping.")


def test_an_unknown_setup_is_one_line(tmp_path: Path, capsys) -> None:
    run = tmp_path / "run.jsonl"
    run.write_text("", encoding="utf-8")
    assert victim_holds.main([str(run), "--setup", "X2Y"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: unknown attack setup 'X2Y'; choose one of: E2E, C2C, N2N, E2C, E2N, C2E"]
