"""Fit the validity estimate on the blind labels, score it by cross-validation, and ship it.

    python bench/validity_estimator.py [--labels results/validity/labels.jsonl] [--second results/validity/labels_pass2.jsonl]
        [--out engine/validity/estimator.json] [--report results/validity/estimator_cv.md]

The items are every distinct labelled (P, H*) of ``results/validity/``: the successful H* of the
NatLog dev-set runs (``*.jsonl``; peer runs, marked by a ``system`` field, are left out) and the
first-round candidates of ``candidates/*.jsonl`` (the search estimates candidates, not only the
H* that won). Each is described by :class:`engine.validity.features.FeatureExtractor`, the same
code the search runs, and is "valid" when the pass-1 label is the setup's target and the English
is not ``broken``.

A logistic regression (standardised features, L2, ``--c``) is scored by 5-fold stratified
cross-validation repeated over three seeds: ROC AUC, the expected calibration error over 10
equal-width bins, the Brier score, the reliability curve, and the AUC against the second pass's
labels (how much of the error is the labels' own noise). It is then fitted on every item and its
numbers written to ``--out`` (what the engine and the tests load), its largest coefficients
printed. A last table says what the estimate can see: its AUC within a source pair (what the
search's order uses), where the labeller does and does not share the source pair's gold label, and
with that agreement given as an oracle feature.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import validity  # noqa: E402
from engine.api import get_settings  # noqa: E402
from engine.natlog.setups import get_setup  # noqa: E402
from engine.reports.tables import format_table  # noqa: E402

DEV = Path(__file__).resolve().parent.parent / "results" / "validity"
SHIPPED = Path(__file__).resolve().parent.parent / "engine" / "validity" / "estimator.json"


def run_files() -> list[Path]:
    """The NatLog dev-set runs and the sampled candidates, peer runs left out."""
    out = []
    for path in sorted(DEV.glob("*.jsonl")) + sorted((DEV / "candidates").glob("*.jsonl")):
        if path.name.startswith("labels"):
            continue
        if any("system" in r for r in validity.read_jsonl(path)):
            continue  # a peer system's run
        out.append(path)
    return out


def labelled_items(labels: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Each distinct labelled (P, H*), successful H* and sampled candidates, with its texts."""
    seen: dict[str, dict[str, Any]] = {}
    for path in run_files():
        for row in validity.with_texts(validity.read_jsonl(path)):
            if row.get("key") in labels and row["status"] in ("success", "candidate") and row["key"] not in seen:
                seen[row["key"]] = row
    return list(seen.values())


# The older name, kept for the analysis scripts that import it.
labelled_successes = labelled_items


def is_valid(label: dict[str, Any], target: str) -> int:
    return int(label["label"] == target and label["english"] != "broken")


def is_natural(label: dict[str, Any], target: str) -> int:
    """Valid and natural: the target label, and English a native speaker could have written (``ok``)."""
    return int(label["label"] == target and label["english"] == "ok")


#: What an estimate predicts, by ``--target``: the judgment, the file the engine loads, the report.
TARGETS = {
    "valid": (is_valid, SHIPPED, DEV / "estimator_cv.md"),
    "natural": (is_natural, SHIPPED.with_name("natural.json"), DEV / "natural_cv.md"),
}


def feature_matrix(rows: list[dict[str, Any]], cache: Path | None = None) -> tuple[tuple[str, ...], list[list[float]]]:
    """Each row's features; with ``cache`` (a JSON file), rows computed before by the same feature
    code (same names) are read back instead of computed again."""
    from engine.edits.operators import registered_operators
    from engine.models.language import load_causal_lm, load_sentence_encoder
    from engine.ranking.scoring import CausalLMScorer
    from engine.validity.features import FeatureExtractor, ValidityInput

    settings = get_settings()
    extractor = FeatureExtractor([op.name for op in registered_operators()],
                                 CausalLMScorer(load_causal_lm("offline", settings=settings, dtype="float32")),
                                 load_sentence_encoder(settings), settings)
    items = [ValidityInput(r["premise"], r["hypothesis"], r["h_star"], tuple(r.get("operators", [])), r["target_label"],
                           int(r.get("edits") or len(r.get("operators", [])) or 1)) for r in rows]
    known: dict[str, list[float]] = {}
    if cache is not None and cache.is_file():
        stored = json.loads(cache.read_text(encoding="utf-8"))
        if stored.get("names") == list(extractor.names):
            known = stored["rows"]
    ids = [f"{r['key']}:{r['target_label']}:{','.join(r.get('operators', []))}:{r.get('edits')}" for r in rows]
    todo = [k for k, i in enumerate(ids) if i not in known]
    for k, row in zip(todo, extractor.extract([items[k] for k in todo])):
        known[ids[k]] = row
    if cache is not None:
        cache.write_text(json.dumps({"names": list(extractor.names), "rows": known}), encoding="utf-8")
    return extractor.names, [known[i] for i in ids]


def expected_calibration_error(y: list[int], p: list[float], bins: int = 10) -> float:
    total, error = len(y), 0.0
    for b in range(bins):
        low, high = b / bins, (b + 1) / bins
        members = [k for k, v in enumerate(p) if low <= v < high or (b == bins - 1 and v == 1.0)]
        if members:
            error += len(members) / total * abs(sum(y[k] for k in members) / len(members)
                                                - sum(p[k] for k in members) / len(members))
    return error


def reliability(y: list[int], p: list[float], bins: int = 10) -> list[list[Any]]:
    rows = []
    for b in range(bins):
        low, high = b / bins, (b + 1) / bins
        members = [k for k, v in enumerate(p) if low <= v < high or (b == bins - 1 and v == 1.0)]
        if members:
            rows.append([f"{low:.1f}-{high:.1f}", len(members), sum(p[k] for k in members) / len(members),
                         sum(y[k] for k in members) / len(members)])
    return rows


def within_pair_auc(groups: list[str], y: list[int], p: list[float]) -> tuple[float | None, int]:
    """How often a valid H* is estimated above an invalid H* of the same source pair (ties count
    half), over every such (valid, invalid) couple, and how many couples there are. The search only
    orders the candidates of one pair, so this is the part of the AUC its order can use."""
    members: dict[str, list[int]] = {}
    for k, group in enumerate(groups):
        members.setdefault(group, []).append(k)
    won, couples = 0.0, 0
    for ks in members.values():
        for i in ks:
            for j in ks:
                if y[i] == 1 and y[j] == 0:
                    couples += 1
                    won += 1.0 if p[i] > p[j] else 0.5 if p[i] == p[j] else 0.0
    return (won / couples if couples else None), couples


def source_agreement(rows: list[dict[str, Any]], labels: dict[str, dict[str, Any]]) -> list[int | None]:
    """Per item: 1 where the labeller gave its source pair (P, H) the setup's source label, 0 where
    they gave another, None where (P, H) was not labelled."""
    out: list[int | None] = []
    for r in rows:
        source = labels.get(validity.item_key(r["premise"], r["hypothesis"]))
        out.append(None if source is None else int(source["label"] == get_setup(r["setup"]).source_label.value))
    return out


def ceiling(rows: list[dict[str, Any]], y: list[int], predictions: list[list[float]], x: Any,
            labels: dict[str, dict[str, Any]], model: Any) -> str:
    """What the estimate can and cannot see, as a table: the AUC within a pair, the AUC and valid
    share where the labeller shares the source pair's gold label and where they do not, and the
    AUC once the labeller's own label of the source pair is a feature (an oracle the engine never
    has: how much of the error is the source pair's own dispute)."""
    import numpy as np
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    def auc(ks: list[int], p: list[float]) -> float | None:
        ys = [y[k] for k in ks]
        return roc_auc_score(ys, [p[k] for k in ks]) if 0 < sum(ys) < len(ys) else None

    def mean(values: list[float | None]) -> float | None:
        known = [v for v in values if v is not None]
        return sum(known) / len(known) if known else None

    groups = [f"{r['premise']}\n{r['hypothesis']}" for r in rows]
    agreed = source_agreement(rows, labels)
    table = [["every item", len(y), sum(y) / len(y), mean([auc(list(range(len(y))), p) for p in predictions])]]
    within = [within_pair_auc(groups, y, p) for p in predictions]
    table.append(["within a source pair (count: valid and invalid H* of the same P, H)", within[0][1], None,
                  mean([w for w, _ in within])])
    for name, value in (("the labeller shares the source pair's gold label", 1),
                        ("the labeller gives the source pair another label", 0)):
        ks = [k for k, a in enumerate(agreed) if a == value]
        if ks:
            table.append([name, len(ks), sum(y[k] for k in ks) / len(ks), mean([auc(ks, p) for p in predictions])])
    oracle = np.column_stack([x, [a == 1 for a in agreed], [a is None for a in agreed]]).astype(float)
    with_oracle = [cross_val_predict(model(), oracle, y, cv=StratifiedKFold(n_splits=5, shuffle=True, random_state=seed),
                                     method="predict_proba")[:, 1].tolist() for seed in range(len(predictions))]
    table.append(["every item, the labeller's source label as a feature (oracle)", len(y), None,
                  mean([auc(list(range(len(y))), p) for p in with_oracle])])
    return format_table(["items", "count", "valid share", "cv auc"], table, frozenset({"valid share", "cv auc"}))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--labels", type=Path, default=DEV / "labels.jsonl")
    parser.add_argument("--second", type=Path, default=DEV / "labels_pass2.jsonl")
    parser.add_argument("--target", choices=sorted(TARGETS), default="valid",
                        help="what the estimate predicts: valid (the target label, not broken English; "
                             "engine/validity/estimator.json) or natural (the target label and natural English, "
                             "`ok`; engine/validity/natural.json)")
    parser.add_argument("--out", type=Path, default=None, help="the fitted estimate (JSON) the engine loads "
                        "(default: the target's file)")
    parser.add_argument("--report", type=Path, default=None, help="the tables, as Markdown (default: the target's)")
    parser.add_argument("--cache", type=Path, default=None, help="reuse features computed before (a JSON file)")
    parser.add_argument("--exclude", default="lm_delta,premise_delta,premise_gain_delta",
                        help="base features the shipped estimate leaves out (comma-separated; the report "
                             "measures what they would add)")
    parser.add_argument("--c", type=float, default=0.01, help="inverse L2 strength of the logistic regression")
    args = parser.parse_args()
    judge, default_out, default_report = TARGETS[args.target]
    args.out = args.out or default_out
    args.report = args.report or default_report
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import brier_score_loss, roc_auc_score
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    labels = validity.read_labels(args.labels)
    second = validity.read_labels(args.second)
    rows = labelled_items(labels)
    y = [judge(labels[r["key"]], r["target_label"]) for r in rows]
    names, matrix = feature_matrix(rows, args.cache)
    x = np.array(matrix)
    keep = [k for k in range(x.shape[1]) if x[:, k].std() > 0]  # a column no item varies in says nothing
    x, names = x[:, keep], tuple(names[k] for k in keep)
    excluded = {n for n in args.exclude.split(",") if n}
    ablations = []
    if excluded:
        # What the left-out features would add, measured: the estimate with them against without.
        for label, cols in (("every feature", list(range(len(names)))),
                            (f"without {', '.join(sorted(excluded))} (shipped)",
                             [k for k, n in enumerate(names) if n.split("|")[0] not in excluded])):
            p = [cross_val_predict(make_pipeline(StandardScaler(), LogisticRegression(C=args.c, max_iter=5000)),
                                   x[:, cols], y, cv=StratifiedKFold(n_splits=5, shuffle=True, random_state=seed),
                                   method="predict_proba")[:, 1].tolist() for seed in range(3)]
            ablations.append([label, len(cols), sum(roc_auc_score(y, q) for q in p) / 3,
                              sum(expected_calibration_error(y, q) for q in p) / 3])
        cols = [k for k, n in enumerate(names) if n.split("|")[0] not in excluded]
        x, names = x[:, cols], tuple(names[k] for k in cols)

    def model() -> Any:
        return make_pipeline(StandardScaler(), LogisticRegression(C=args.c, max_iter=5000))

    results = []
    for seed in range(3):
        folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=seed)
        results.append(cross_val_predict(model(), x, y, cv=folds, method="predict_proba")[:, 1].tolist())
    predicted = results[0]
    paired = [(k, judge(second[r["key"]], r["target_label"])) for k, r in enumerate(rows) if r["key"] in second]
    summary = format_table(
        ["items", "valid share", "cv auc (3 seeds)", "cv ece", "cv brier", "auc vs pass 2", "pass-2 items",
         "pass 2 vs pass 1 auc"],
        [[len(y), sum(y) / len(y), sum(roc_auc_score(y, p) for p in results) / 3,
          sum(expected_calibration_error(y, p) for p in results) / 3,
          sum(brier_score_loss(y, p) for p in results) / 3,
          roc_auc_score([v for _, v in paired], [predicted[k] for k, _ in paired]) if paired else None, len(paired),
          roc_auc_score([y[k] for k, _ in paired], [v for _, v in paired]) if paired else None]],
        frozenset({"valid share", "cv auc (3 seeds)", "cv ece", "cv brier", "auc vs pass 2", "pass 2 vs pass 1 auc"}))
    by_op = []
    for op in sorted({op for r in rows for op in r.get("operators", [])}):
        members = [k for k, r in enumerate(rows) if op in r.get("operators", [])]
        ys = [y[k] for k in members]
        by_op.append([op, len(members), sum(ys) / len(ys),
                      roc_auc_score(ys, [predicted[k] for k in members]) if 0 < sum(ys) < len(ys) else None])
    per_operator = format_table(["operator", "items", "valid share", "cv auc within"], by_op,
                                frozenset({"valid share", "cv auc within"}))
    curve = format_table(["estimate", "items", "mean estimate", "valid share"], reliability(y, predicted),
                         frozenset({"mean estimate", "valid share"}))
    limits = ceiling(rows, y, results, x, labels, model)
    fitted = model().fit(x, y)
    scaler, regression = fitted[0], fitted[-1]
    coefficients = regression.coef_[0].tolist()
    weights = format_table(["feature", "coefficient (standardised)"],
                           [[n, f"{c:+.3f}"] for n, c in sorted(zip(names, coefficients), key=lambda i: -abs(i[1]))[:25]])
    labels_digest = hashlib.sha256(args.labels.read_bytes()).hexdigest()[:16]
    shipped = {
        "features": list(names), "mean": scaler.mean_.tolist(), "scale": scaler.scale_.tolist(),
        "coef": coefficients, "intercept": float(regression.intercept_[0]),
        "meta": {"target": args.target, "items": len(y), "valid_share": round(sum(y) / len(y), 4), "labels": f"sha256:{labels_digest}",
                 "c": args.c, "cv_auc": round(sum(roc_auc_score(y, p) for p in results) / 3, 4),
                 "cv_ece": round(sum(expected_calibration_error(y, p) for p in results) / 3, 4)},
    }
    args.out.write_text(json.dumps(shipped, indent=1) + "\n", encoding="utf-8")
    ablation = format_table(["features", "columns", "cv auc (3 seeds)", "cv ece"], ablations,
                            frozenset({"cv auc (3 seeds)", "cv ece"})) if ablations else ""
    text = (f"## Cross-validated\n\n{summary}\n\n## Left-out features, measured\n\n{ablation}\n\n"
            f"## Per operator\n\n{per_operator}\n\n## What the estimate can see (the same folds)\n\n{limits}"
            f"\n\n## Reliability (seed 0)\n\n{curve}"
            f"\n\n## The 25 largest coefficients of the shipped fit\n\n{weights}\n")
    print(text)
    if args.report is not None:
        args.report.write_text(text, encoding="utf-8")
    print(f"wrote {args.out} ({len(names)} features) and {args.report}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
