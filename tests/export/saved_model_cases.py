"""Model files written by an earlier dtdecide, kept as test data: how they were made.

``tests/data/models_v2/`` holds one small native model file (``.dtdecide``) per estimator
kind, written before the tree package was split into layers, and next to each the outputs
it gave then on fixed rows (``<name>.json``). ``test_saved_models.py`` loads every file with
today's code and checks that it predicts and decides exactly as recorded.

Run this module (``python tests/export/saved_model_cases.py``) only to write the files
again for a deliberate format change; the point of the files is that they are old.
"""

import json
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parents[1] / "data" / "models_v2"
N = 300


def table(seed=0, n=N):
    """Numeric, missing and categorical inputs (the rows every model is fitted and scored on)."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {
            "age": np.round(rng.normal(40, 10, n), 3),
            "income": np.where(rng.random(n) < 0.1, np.nan, np.round(rng.gamma(2.0, 20.0, n), 3)),
            "job": pd.Categorical(
                rng.choice(["admin", "tech", "sales", None], n),
                categories=["admin", "sales", "tech"],
            ),
            "region": rng.choice([1, 2, 3], n),
        },
        index=pd.RangeIndex(100, 100 + n),
    )
    score = (X["age"] - 40) / 10 + (X["job"] == "tech") + rng.normal(0, 1, n)
    costs = pd.DataFrame({"mail_cost": np.round(rng.uniform(0.5, 3.0, n), 3)}, index=X.index)
    return X, score, costs


def blobs():
    """Two numeric inputs, three classes (the models of :mod:`dtdecide.models`)."""
    from sklearn.datasets import make_blobs

    return make_blobs([150, 30, 30], centers=[[0, 0], [2, 0], [0, 2]], random_state=0)


def cases():
    """name -> (fitted model, X, y or None, costs or None), built with the code of the day."""
    from sklearn.linear_model import LogisticRegression

    from dtdecide import (
        DecisionEstimator,
        DecisionMatrix,
        ProfitTreeClassifier,
        ProfitTreeRegressor,
    )
    from dtdecide.models import (
        BenefitWeightedLogisticRegression,
        CostSensitiveNaiveBayes,
        FlatCostSensitiveClassifier,
        HierarchicalCostSensitiveClassifier,
    )

    X, score, costs = table()
    y2 = pd.Series(np.where(score > 0.5, "yes", "no"), index=X.index, name="bought")
    y3 = pd.Series(
        pd.cut(score, [-np.inf, -0.5, 0.8, np.inf], labels=["lo", "mid", "hi"]).astype(str),
        index=X.index,
        name="band",
    )
    binary = DecisionMatrix(
        [[0.0, -1.0], [0.0, 9.0]], levels=["no", "yes"], decisions=["ignore", "mail"]
    )
    three = DecisionMatrix(
        [[3.0, 0.0, -2.0], [0.0, 3.0, 0.0], [-2.0, 0.0, 3.0]],
        levels=["lo", "mid", "hi"],
        decisions=["a", "b", "c"],
    )
    revenue = DecisionMatrix(
        {"mail": [0.0, 30.0], "ignore": [0.0, 0.0]},
        levels=["no", "yes"],
        kind="revenue",
        costs={"mail": "mail_cost"},
    )
    small = dict(max_depth=4, min_samples_leaf=10, random_state=0)
    out = {}
    out["clf_binary_leaf"] = (
        ProfitTreeClassifier(decision_matrix=binary, **small).fit(X, y2),
        X,
        y2,
        None,
    )
    out["clf_binary_profit_pruned"] = (
        ProfitTreeClassifier(decision_matrix=binary, criterion="profit", **small)
        .fit(X, y2)
        .prune(n_leaves=3),
        X,
        y2,
        None,
    )
    out["clf_case_rule_costs"] = (
        ProfitTreeClassifier(decision_matrix=revenue, decision_rule="case", **small).fit(
            X, y2, costs=costs
        ),
        X,
        y2,
        costs,
    )
    out["clf_leaf_rule_costs"] = (
        ProfitTreeClassifier(decision_matrix=revenue, **small).fit(X, y2, costs=costs),
        X,
        y2,
        costs,
    )
    out["clf_nominal"] = (
        ProfitTreeClassifier(decision_matrix=three, **small).fit(X, y3),
        X,
        y3,
        None,
    )
    out["clf_ordinal"] = (
        ProfitTreeClassifier(decision_matrix=three, ordinal=True, **small).fit(X, y3),
        X,
        y3,
        None,
    )
    out["clf_priors_entropy"] = (
        ProfitTreeClassifier(
            decision_matrix=DecisionMatrix(
                [[0.0, -1.0], [0.0, 9.0]],
                levels=["no", "yes"],
                decisions=["ignore", "mail"],
                priors=[0.8, 0.2],
            ),
            criterion="entropy",
            **small,
        ).fit(X, y2),
        X,
        y2,
        None,
    )
    out["clf_plain"] = (ProfitTreeClassifier(**small).fit(X, y2), X, y2, None)
    out["clf_exact"] = (
        ProfitTreeClassifier(
            decision_matrix=binary, search="exact", max_depth=2, min_samples_leaf=10
        ).fit(X[["age", "region"]], y2),
        X[["age", "region"]],
        y2,
        None,
    )
    spend = pd.Series(np.round(200 + 80 * score, 3), index=X.index, name="spend")
    knots = DecisionMatrix([[0.0, -5.0], [0.0, 20.0]], knots=[0.0, 500.0], decisions=["a", "b"])
    out["reg_matrix"] = (
        ProfitTreeRegressor(decision_matrix=knots, max_depth=3, min_samples_leaf=20).fit(X, spend),
        X,
        spend,
        None,
    )
    out["reg_profit_case"] = (
        ProfitTreeRegressor(
            decision_matrix=knots,
            criterion="profit",
            decision_rule="case",
            max_depth=3,
            min_samples_leaf=20,
        ).fit(X, spend),
        X,
        spend,
        None,
    )
    out["reg_plain"] = (
        ProfitTreeRegressor(max_depth=3, min_samples_leaf=20).fit(X, spend),
        X,
        spend,
        None,
    )
    Xn = X[["age"]].assign(income=X["income"].fillna(0.0))
    out["decision_estimator_lr"] = (
        DecisionEstimator(LogisticRegression(), binary).fit(Xn, y2),
        Xn,
        y2,
        None,
    )
    out["decision_estimator_tree"] = (
        DecisionEstimator(ProfitTreeClassifier(max_depth=3), binary).fit(X, y2),
        X,
        y2,
        None,
    )
    Xb, yb = blobs()
    Xb = pd.DataFrame(Xb, columns=["u", "v"])
    out["models_benefit_lr"] = (
        BenefitWeightedLogisticRegression(benefit_matrix=[[1, -1], [-2, 4]]).fit(
            Xb.to_numpy(), (yb > 0).astype(int)
        ),
        Xb.to_numpy(),
        None,
        None,
    )
    out["models_flat"] = (
        FlatCostSensitiveClassifier(cost_dh=10, random_state=0).fit(Xb.to_numpy(), yb),
        Xb.to_numpy(),
        None,
        None,
    )
    out["models_hierarchical"] = (
        HierarchicalCostSensitiveClassifier(benefit_weighted=True, random_state=0).fit(
            Xb.to_numpy(), yb
        ),
        Xb.to_numpy(),
        None,
        None,
    )
    out["models_naive_bayes"] = (
        CostSensitiveNaiveBayes(cost_matrix=[[0, 1, 1], [5, 0, 1], [5, 1, 0]]).fit(
            Xb.to_numpy(), yb
        ),
        Xb.to_numpy(),
        None,
        None,
    )
    return out


def _plain(values):
    """JSON-able list of a 1-d or 2-d array (floats keep every digit)."""
    arr = np.asarray(values)
    if arr.dtype.kind == "f":
        return arr.tolist()
    if arr.dtype.kind in "iub":
        return arr.astype(np.int64).tolist()
    return (
        [str(v) for v in arr.ravel()] if arr.ndim == 1 else [[str(v) for v in row] for row in arr]
    )


def rows(X, y, costs, n=80):
    """The first ``n`` rows of X, y and costs (the fixed rows the outputs are recorded on)."""

    def head(obj):
        return None if obj is None else obj.iloc[:n] if hasattr(obj, "iloc") else obj[:n]

    return head(X), head(y), head(costs)


def outputs(model, X, y, costs):
    """Everything a model answers on X: predictions, probabilities, leaves, decisions."""
    X, y, costs = rows(X, y, costs)
    out = {"predict": _plain(model.predict(X))}
    if hasattr(model, "predict_proba"):
        out["predict_proba"] = _plain(model.predict_proba(X))
    if hasattr(model, "apply"):
        out["apply"] = _plain(model.apply(X))
    if getattr(model, "decision_matrix_", None) is not None or hasattr(model, "matrix_"):
        cases = model.decide(X, y, costs=costs).cases
        out["decide"] = {
            str(col): _plain(
                cases[col].astype(
                    object if cases[col].dtype.kind not in "fiub" else cases[col].dtype
                )
            )
            for col in cases.columns
        }
    return out


def write():
    from dtdecide.export import save

    HERE.mkdir(parents=True, exist_ok=True)
    for name, (model, X, y, costs) in cases().items():
        save(model, HERE / f"{name}.dtdecide")
        (HERE / f"{name}.json").write_text(json.dumps(outputs(model, X, y, costs)) + "\n")


if __name__ == "__main__":
    write()
