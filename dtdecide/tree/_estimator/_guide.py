"""A guide model's cross-fitted posteriors for the split search of a profit tree.

Layer 4 (estimator) of :mod:`dtdecide.tree`; see the architecture page.

With ``guide_model`` a :class:`~dtdecide.ProfitTreeClassifier` grown on
``criterion="profit"`` under the leaf rule does not grow on the realised consequences of
its training cases, ``Q(i, T(i), d)``, but on their expected consequences under the
guide's posteriors, ``E(i, d) = sum_t p(i, t) Q(i, t, d)``: each case with its own costs,
its posteriors from a copy of the guide fitted on the other folds of the training rows
(cross-fitting: no case is scored by a model that saw its own target). A realised
outcome says which decision would have been right for one case after the fact; the
expected consequences say which decision is best for the case as the guide sees it,
before the fact, which is what a leaf's one decision has to get right for the cases to
come. With case-specific consequences and no matrix priors the leaves also decide, and
the nodes' pruning risks sum, on these expected profits
(:func:`guided_leaf_consequences`); the leaf posteriors stay the training cases' class
shares.
"""

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold
from sklearn.utils import _safe_indexing
from sklearn.utils.validation import check_random_state, has_fit_parameter

from ...decision._consequences import Consequences
from ...decision._validation import model_classes, model_proba

__all__ = ["check_guide", "guide_posteriors", "guided_leaf_consequences"]


def guide_posteriors(estimator, X, target, F, rows, priors=None):
    """Posteriors of the training ``rows`` from ``estimator.guide_model``, cross-fitted.

    Parameters
    ----------
    estimator : ProfitTreeClassifier
        The tree being fitted (``guide_model``, ``guide_cv``, ``random_state``,
        ``classes_``).
    X : DataFrame or array-like of shape (n_samples, n_features)
        The training inputs as the user gave them (cost columns taken out). The guide
        reads them as the tree does: text columns of a frame (object or string dtype)
        as pandas categoricals, everything else as given.
    target : ndarray of shape (n_samples,)
        Level codes (positions in ``classes_``).
    F : ndarray of shape (n_samples,)
        Case frequencies (a read-only broadcast of 1 when none were given).
    rows : slice or ndarray
        The rows the tree grows on (all, or those of honest growing).
    priors : ndarray of shape (n_levels,) or None
        Matrix priors: the posteriors are then adjusted from the training shares of the
        levels to the priors, as the tree's own posteriors are.

    Returns
    -------
    ndarray of shape (n_rows, n_levels)
        Every growing row's posteriors, in the order of ``classes_`` (0 for a level the
        guide's copy did not see).
    """
    guide = estimator.guide_model
    n_levels = len(estimator.classes_)
    t = np.asarray(target)[rows]
    w = np.asarray(F)[rows]
    X_rows = _as_categories(
        X if isinstance(rows, slice) and rows == slice(None) else _safe_indexing(X, rows))
    seen = np.flatnonzero(np.bincount(t, weights=w, minlength=n_levels) > 0)
    if seen.size < 2:
        raise ValueError(
            "guide_model: the training cases hold a single level "
            f"({estimator.classes_[seen[0]]!r}); a guide needs two levels or more")
    folds = int(estimator.guide_cv)
    smallest = int(np.bincount(t, minlength=n_levels)[seen].min())
    if smallest < folds:
        raise ValueError(
            f"guide_cv={folds}: the rarest level has {smallest} growing case(s); "
            f"cross-fitting the guide needs at least guide_cv of each level")
    weights = None
    if not np.all(w == 1.0):
        if not has_fit_parameter(guide, "sample_weight"):
            raise ValueError(
                f"guide_model: {type(guide).__name__}.fit takes no sample_weight, and "
                "the tree has case frequencies; use a guide that takes them")
        weights = np.ascontiguousarray(w)
    seed = check_random_state(estimator.random_state).randint(np.iinfo(np.int32).max)
    cv = StratifiedKFold(folds, shuffle=True, random_state=seed)
    post = np.zeros((t.shape[0], n_levels))
    # the level codes are the guide's labels; each fold's columns go to its classes_
    for fit_rows, score_rows in cv.split(np.zeros(t.shape[0]), t):
        params = {} if weights is None else {"sample_weight": weights[fit_rows]}
        name = type(guide).__name__
        try:
            model = clone(guide).fit(_safe_indexing(X_rows, fit_rows), t[fit_rows], **params)
            proba = model.predict_proba(_safe_indexing(X_rows, score_rows))
        except (TypeError, ValueError) as exc:
            raise (TypeError if isinstance(exc, TypeError) else ValueError)(
                f"guide_model {name} could not be fitted on X or give its posteriors: "
                f"{exc} (the guide reads X as the tree does, text columns as pandas "
                "categoricals)") from exc
        codes = model_classes(model, t[fit_rows], f"guide_model {name}")
        post[np.ix_(score_rows, codes)] = model_proba(proba, len(score_rows), codes.shape[0],
                                                      f"guide_model {name}")
    if priors is not None:
        share = np.bincount(t, weights=w, minlength=n_levels)
        share = share / share.sum()
        ratio = np.divide(np.asarray(priors, dtype=float), share,
                          out=np.zeros(n_levels), where=share > 0)
        post = post * ratio
        total = post.sum(axis=1, keepdims=True)
        post = np.divide(post, total, out=np.zeros_like(post), where=total > 0)
    return post


def _as_categories(X):
    """``X`` with its text columns (object or string dtype) as pandas categoricals."""
    if not isinstance(X, pd.DataFrame):
        return X
    text = [c for c, t in X.dtypes.items()
            if pd.api.types.is_object_dtype(t) or pd.api.types.is_string_dtype(t)]
    if not text:
        return X
    out = X.copy(deep=False)
    for c in text:
        out[c] = X[c].astype("category")
    return out


def check_guide(estimator, split_criterion):
    """Refuse a ``guide_model`` the fit cannot use (once the split criterion is known)."""
    guide = getattr(estimator, "guide_model", None)
    if guide is None:
        return
    if isinstance(guide, type):
        raise TypeError(f"guide_model must be a classifier instance; got the class "
                        f"{guide.__name__}: instantiate it (guide_model={guide.__name__}())")
    if split_criterion != "profit" or estimator.search != "greedy":
        raise ValueError(
            "guide_model guides the split search of criterion='profit' under "
            "decision_rule='leaf' (greedy search, a decision matrix, a nominal or binary "
            f"target); got criterion={estimator.criterion!r}, "
            f"decision_rule={estimator.decision_rule!r}, search={estimator.search!r}"
            + (", an ordinal target" if getattr(estimator, "is_ordinal_", False) else ""))


def guided_leaf_consequences(cons, posteriors, matrix):
    """The consequences a guided tree's leaves decide on: every case's expected profit
    under the guide's posteriors, ``E(i, d)``, whatever its level; or ``cons`` itself.

    With case-specific consequences (a consequence array or cost rows per case) and no
    matrix priors, a node's decision is then the one with the largest expected profit
    of its training cases, ``argmax_d sum_i F(i) E(i, d)``, and its pruning risk minus
    that sum: estimates of what the node earns that do not hang on the one outcome of
    each case, as the policy trees' direct-method rewards. The class shares (the
    posteriors the tree reports) still come from the cases' levels. Other matrices
    (additive costs, priors, whose node sums are kept per level and reweighted) decide
    on the realised consequences.
    """
    if cons.case_q is None or matrix.priors is not None:
        return cons
    expected = np.asarray(cons.expected(posteriors), dtype=np.float64)
    every_level = np.broadcast_to(expected[:, None, :], cons.case_q.shape)
    return Consequences(np.zeros_like(cons.base), None, every_level, cons.sign, None,
                        cons.n_samples)
