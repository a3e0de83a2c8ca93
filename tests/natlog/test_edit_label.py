"""The label natural logic gives (P, H*) after a person's edit of H, from the pair's gold label."""

from __future__ import annotations

import pytest

from engine.core.errors import InputError
from engine.verify.edit_label import CANNOT_TELL, label_after_edit


@pytest.mark.parametrize(("gold", "hypothesis", "hstar", "label", "setup"), [
    # A contradicted H made more specific stays contradicted (C2C).
    ("contradiction", "A dog runs.", "A black dog runs.", "contradiction", "C2C"),
    # An entailed H made strictly stronger: the paper's E2N reading.
    ("entailment", "A man is playing a guitar.", "A man is playing a red guitar.", "neutral", "E2N"),
    # An entailed H made weaker by deleting a modifier stays entailed (E2E).
    ("entailment", "A man is playing a red guitar.", "A man is playing a guitar.", "entailment", "E2E"),
])
def test_a_licensed_edit_gets_its_setups_label(settings, gold, hypothesis, hstar, label, setup) -> None:
    found = label_after_edit(gold, hypothesis, hstar, settings)
    assert (found.label, found.setup.name if found.setup else None) == (label, setup)
    assert found.committed and found.verdict is not None and found.verdict.steps
    assert found.to_json()["setup"] == setup and found.relations in found.reason


def test_an_edit_no_setup_of_the_label_holds_is_cannot_tell_with_the_reason(settings) -> None:
    # A neutral pair's H made weaker: P may now entail it, or still not.
    found = label_after_edit("neutral", "A man sleeps.", "A person sleeps.", settings)
    assert found.label == CANNOT_TELL and not found.committed and found.setup is None
    assert "no setup of a neutral pair" in found.reason and found.relations == "⊏"


def test_bad_input_is_one_line(settings) -> None:
    with pytest.raises(InputError, match="label"):
        label_after_edit("maybe", "A dog runs.", "A cat runs.", settings)
    with pytest.raises(InputError) as info:
        label_after_edit("entailment", "A dog runs.", "   ", settings)
    assert "\n" not in str(info.value) and str(info.value).startswith("H*:")
