"""How well can validity be told before the victim is asked? A first, cross-validated look.

    python bench/validity_estimator.py [--labels bench/validity/labels.jsonl] [--out bench/validity/estimator_cv.md]

Reads every NatLog run in ``bench/validity/`` (peer runs, marked by a ``system`` field, are left out),
takes each distinct successful (P, H*) that the blind labels cover, and describes it by what the
engine knows before it queries the victim:

- the operators of its derivation (one column each) and its number of edits;
- the setup's target label;
- ``lm_delta``: log perplexity of H* minus that of H under the ranking LM (SmolLM2, float32);
- ``premise_delta``: the mean NLL of H* after reading P minus that of H after reading P
  (:meth:`engine.scoring.CausalLMScorer.conditional_nll`): does P make H* as expected as it made H?
- ``premise_gain_delta``: how much reading P helps H*, minus how much it helps H;
- ``length_delta``: words of H* minus words of H;
- ``check``: the verifier's verdict on H -> H* against the setup's relations (re-derived, unknown,
  fails: :func:`engine.verifier.self_check`, the same check every stored attack carries).

The target is "valid": the labelled label is the setup's target and the English is not broken. A
logistic regression (standardised features) is scored by 5-fold stratified cross-validation:
ROC AUC, the expected calibration error over 10 equal-width bins, and the Brier score; then it is
fitted on everything and its coefficients are printed. This is an analysis: the engine does not
use the model yet.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import validity  # noqa: E402
from engine.tables import format_table  # noqa: E402

DEV = Path(__file__).resolve().parent / "validity"
NUMERIC = ("edits", "lm_delta", "premise_delta", "premise_gain_delta", "length_delta")
CHECKS = ("re-derived", "unknown", "fails")
TARGETS = ("entailment", "neutral", "contradiction")


def labelled_successes(labels: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Each distinct labelled successful NatLog (P, H*) of the dev-set runs, with its texts."""
    seen: dict[str, dict[str, Any]] = {}
    for path in sorted(DEV.glob("*.jsonl")):
        if path.name.startswith("labels"):
            continue
        rows = validity.read_jsonl(path)
        if any("system" in r for r in rows):
            continue  # a peer system's run
        for row in validity.with_texts(rows):
            if row.get("key") in labels and row["status"] == "success" and row["key"] not in seen:
                seen[row["key"]] = row
    return list(seen.values())


def features(rows: list[dict[str, Any]]) -> tuple[list[str], list[list[float]]]:
    from engine.models import load_causal_lm
    from engine.scoring import CausalLMScorer

    scorer = CausalLMScorer(load_causal_lm("offline", dtype="float32"))
    h, h_star = [r["hypothesis"] for r in rows], [r["h_star"] for r in rows]
    ppl_h, ppl_star = scorer.score(h), scorer.score(h_star)
    cond_h = scorer.conditional_nll([(r["premise"], r["hypothesis"]) for r in rows])
    cond_star = scorer.conditional_nll([(r["premise"], r["h_star"]) for r in rows])
    from engine.natlog.setups import get_setup
    from engine.verifier import self_check

    checks = [self_check(r["hypothesis"], r["h_star"], get_setup(r["setup"]).relations).status for r in rows]
    operators = sorted({op for r in rows for op in r.get("operators", [])})
    names = ([f"op:{op}" for op in operators] + [f"target:{t}" for t in TARGETS] + list(NUMERIC)
             + [f"check:{c}" for c in CHECKS])
    matrix = []
    for k, r in enumerate(rows):
        ops = set(r.get("operators", []))
        gain_star, gain_h = math.log(ppl_star[k]) - cond_star[k], math.log(ppl_h[k]) - cond_h[k]
        numeric = [float(r.get("edits") or len(r.get("operators", []))), math.log(ppl_star[k]) - math.log(ppl_h[k]),
                   cond_star[k] - cond_h[k], gain_star - gain_h,
                   float(len(r["h_star"].split()) - len(r["hypothesis"].split()))]
        matrix.append([float(op in ops) for op in operators] + [float(r["target_label"] == t) for t in TARGETS]
                      + numeric + [float(checks[k] == c) for c in CHECKS])
    return names, matrix


def expected_calibration_error(y: list[int], p: list[float], bins: int = 10) -> float:
    total, error = len(y), 0.0
    for b in range(bins):
        low, high = b / bins, (b + 1) / bins
        members = [k for k, v in enumerate(p) if low <= v < high or (b == bins - 1 and v == 1.0)]
        if members:
            error += len(members) / total * abs(sum(y[k] for k in members) / len(members)
                                                - sum(p[k] for k in members) / len(members))
    return error


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--labels", type=Path, default=DEV / "labels.jsonl")
    parser.add_argument("--out", type=Path, default=None, help="also write the tables here (Markdown)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import brier_score_loss, roc_auc_score
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    labels = validity.read_labels(args.labels)
    rows = labelled_successes(labels)
    y = [int(labels[r["key"]]["label"] == r["target_label"] and labels[r["key"]]["english"] != "broken") for r in rows]
    names, matrix = features(rows)
    x = np.array(matrix)
    model = make_pipeline(StandardScaler(), LogisticRegression(C=0.5, max_iter=2000))
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=args.seed)
    predicted = cross_val_predict(model, x, y, cv=folds, method="predict_proba")[:, 1].tolist()
    only_ops = [k for k, n in enumerate(names) if n.startswith(("op:", "target:"))]
    baseline = cross_val_predict(model, x[:, only_ops], y, cv=folds, method="predict_proba")[:, 1].tolist()
    summary = format_table(
        ["features", "items", "valid share", "cv auc", "cv ece", "cv brier"],
        [[name, len(y), sum(y) / len(y), roc_auc_score(y, p), expected_calibration_error(y, p), brier_score_loss(y, p)]
         for name, p in (("operator + target only", baseline), ("all", predicted))],
        frozenset({"valid share", "cv auc", "cv ece", "cv brier"}))
    model.fit(x, y)
    coefficients = model[-1].coef_[0].tolist()
    weights = format_table(["feature", "coefficient (standardised)"],
                           [[n, f"{c:+.3f}"] for n, c in sorted(zip(names, coefficients), key=lambda item: -abs(item[1]))])
    text = f"{summary}\n\n{weights}\n"
    print(text)
    if args.out is not None:
        args.out.write_text(text, encoding="utf-8")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
