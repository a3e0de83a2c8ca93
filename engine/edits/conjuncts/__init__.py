"""Coordinations in a UD parse, their boolean-or-not risk, and the conjunct edits they license.

ConjNLI (Saha et al. 2020) probes inference over conjunctive sentences: removing, adding or
replacing a conjunct. Natural logic labels such edits exactly when the coordination is *boolean*
("John and Mary sing" is "John sings and Mary sings"): in an upward context removing a conjunct of
*and* gives forward entailment, (A ∧ B) ⊏ A, adding a disjunct too, A ⊏ (A ∨ B); removing a
disjunct is reverse entailment; a downward context swaps ⊏ and ⊐. *Non-boolean* uses ("John and
Mary met", "between London and Paris", "Procter and Gamble", "two and a half") license nothing:
they are flagged with the reason, and their edits are never labelled safe.

Three parts: :mod:`.detection` (:func:`find_coordinations` reads the coordinations off the parse,
:func:`assess_risk` says whether each is boolean), :mod:`.projection` (the context an edit projects
through) and :mod:`.rendering` (:func:`conjunct_edits` makes the edited sentences, detokenised,
with subject-verb agreement kept, and labels them).
"""

from engine.edits.conjuncts.detection import (
    BOOLEAN_CONNECTIVES,
    COORDINATOR_FORMS,
    EDITABLE,
    Conjunct,
    Coordination,
    Risk,
    assess_risk,
    find_coordinations,
)
from engine.edits.conjuncts.projection import coordination_projection
from engine.edits.conjuncts.rendering import (
    EDIT_KINDS,
    ConjunctEdit,
    Phrase,
    conjunct_edits,
    conjunct_phrase,
    coordination_edits,
    donor_phrases,
    lexical_relation,
    lexicon_phrase,
    render,
    verb_tag,
)

__all__ = [
    "BOOLEAN_CONNECTIVES", "COORDINATOR_FORMS", "EDITABLE", "EDIT_KINDS", "Conjunct", "ConjunctEdit", "Coordination",
    "Phrase", "Risk", "assess_risk", "conjunct_edits", "conjunct_phrase", "coordination_edits",
    "coordination_projection", "donor_phrases", "find_coordinations", "lexical_relation", "lexicon_phrase", "render",
    "verb_tag",
]
