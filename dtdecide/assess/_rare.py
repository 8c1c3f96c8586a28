"""Rare classes: class-balanced training samples and misclassification rates."""

import numbers

import numpy as np
import pandas as pd
from sklearn.utils import Bunch, check_random_state

from ..decision._validation import check_1d, check_sample_weight, reference_index

__all__ = ["balanced_sample", "misclassification_rates"]


def _labels(y, name="y", index=None, reference="X"):
    arr = check_1d(y, name, index=index, reference=reference)
    if pd.isna(pd.Series(arr)).any():
        raise ValueError(f"{name} must not contain missing values")
    return arr


def _plain(label):
    """A numpy scalar label as the Python value (``'yes'``, not ``np.str_('yes')``)."""
    return label.item() if isinstance(label, np.generic) else label


def _weights(sample_weight, n, index=None, reference="X"):
    w = check_sample_weight(sample_weight, n, index=index, reference=reference)
    return np.ones(n) if w is None else w


def balanced_sample(X, y, *, n_per_class=None, replace=False, sample_weight=None,
                    random_state=None):
    """Draw a class-balanced training sample and record the operational proportions.

    Rare classes are often easier to model from a sample with the same number of cases
    of every class. The posteriors of a model trained on it reflect the sample's
    proportions, not the operational ones: pass ``priors`` to the decision matrix and
    ``train_priors`` to :func:`dtdecide.decide` (a :class:`~dtdecide.DecisionEstimator`
    or a profit tree uses the training proportions itself) so that decisions use
    correctly adjusted posteriors.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_samples, n_features)
        Inputs, one row per case.
    y : array-like of shape (n_samples,)
        Class labels.
    n_per_class : int, default=None
        Cases drawn from every class; default: the size of the smallest class.
    replace : bool, default=False
        Draw with replacement (needed when ``n_per_class`` exceeds a class size).
    sample_weight : array-like of shape (n_samples,), default=None
        Frequencies of the full data: they define the operational proportions and are
        returned for the drawn cases (cases are drawn with equal probability within a
        class, whatever their weight).
    random_state : int, RandomState instance or None, default=None
        Seeds the draw.

    Returns
    -------
    Bunch
        ``X``, ``y`` (the balanced sample, in the original row order), ``indices``
        (positions in the input), ``sample_weight`` (of the drawn cases, or None),
        ``priors`` (Series: operational class proportions of the full data),
        ``train_priors`` (Series: class proportions of the sample).

    Examples
    --------
    >>> import numpy as np
    >>> from dtdecide.assess import balanced_sample
    >>> y = np.array(["rare"] * 10 + ["common"] * 90)
    >>> X = np.arange(100).reshape(-1, 1)
    >>> s = balanced_sample(X, y, random_state=0)
    >>> s.X.shape, s.priors.round(6).to_dict(), s.train_priors.round(6).to_dict()
    ((20, 1), {'common': 0.9, 'rare': 0.1}, {'common': 0.5, 'rare': 0.5})
    """
    y_arr = _labels(y, index=reference_index(X))
    n = y_arr.shape[0]
    if X is not None and len(X) != n:
        raise ValueError(f"X and y have inconsistent numbers of samples: {len(X)} and {n}")
    w = _weights(sample_weight, n, reference_index(X))
    classes, codes = np.unique(y_arr, return_inverse=True)
    counts = np.bincount(codes, minlength=len(classes))
    if n_per_class is None:
        n_per_class = int(counts.min())
    elif (not isinstance(n_per_class, numbers.Integral) or isinstance(n_per_class, bool)
          or n_per_class < 1):
        raise ValueError(f"n_per_class must be a positive integer; got {n_per_class!r}")
    if not replace and n_per_class > counts.min():
        small = _plain(classes[int(np.argmin(counts))])
        raise ValueError(
            f"n_per_class={n_per_class} exceeds the {int(counts.min())} cases of class "
            f"{small!r}; use replace=True or a smaller n_per_class"
        )
    rng = check_random_state(random_state)
    picked = [
        rng.choice(np.flatnonzero(codes == k), size=n_per_class, replace=replace)
        for k in range(len(classes))
    ]
    indices = np.sort(np.concatenate(picked))
    freq = np.bincount(codes, weights=w, minlength=len(classes))
    if freq.sum() <= 0:
        raise ValueError("sample_weight must have a positive sum")
    sw = None if sample_weight is None else w[indices]
    sample_freq = np.bincount(codes[indices], weights=None if sw is None else sw,
                              minlength=len(classes))
    idx = pd.Index(classes, name="class")
    if isinstance(X, (pd.DataFrame, pd.Series)):
        X_s = X.iloc[indices]
    elif X is None:
        X_s = None
    else:
        X_s = np.asarray(X)[indices]
    y_s = y.iloc[indices] if isinstance(y, pd.Series) else y_arr[indices]
    return Bunch(
        X=X_s,
        y=y_s,
        indices=indices,
        sample_weight=sw,
        priors=pd.Series(freq / freq.sum(), index=idx, name="prior"),
        train_priors=pd.Series(sample_freq / sample_freq.sum(), index=idx, name="train_prior"),
    )


def misclassification_rates(y_true, y_pred, *, priors=None, sample_weight=None):
    """Conditional and unconditional misclassification rates, with or without priors.

    The unconditional rate weights each class's conditional rate by its share of the
    data; the prior-adjusted rate weights it by the priors instead. On a balanced
    training sample of a rare class the adjusted rate can look good while the rare
    class is mostly missed (see the Notes).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Actual and predicted classes.
    priors : dict or Series, default=None
        Operational proportions ``{class: prior}`` (rescaled to sum to one); classes
        missing from it get prior 0.
    sample_weight : array-like of shape (n_samples,), default=None
        Frequencies.

    Returns
    -------
    Series
        ``conditional[<class>]`` for every class (share of that class misclassified),
        ``unadjusted`` and, with priors, ``prior_adjusted``.

    Notes
    -----
    dtdecide never prior-adjusts fit statistics (misclassification, ASE): with a rare
    class at 10% trained on a 50/50 sample, conditional rates of 80% (rare) and 20%
    (common) give an unadjusted rate of ``0.5*0.8 + 0.5*0.2 = 0.50`` but an adjusted
    rate of ``0.1*0.8 + 0.9*0.2 = 0.26``, which hides that four rare cases in five are
    missed.

    Examples
    --------
    >>> from dtdecide.assess import misclassification_rates
    >>> y = ["rare"] * 10 + ["common"] * 10
    >>> pred = ["rare"] * 2 + ["common"] * 8 + ["common"] * 8 + ["rare"] * 2
    >>> r = misclassification_rates(y, pred, priors={"rare": 0.1, "common": 0.9})
    >>> r.round(2).to_dict()
    {'conditional[common]': 0.2, 'conditional[rare]': 0.8, 'unadjusted': 0.5, 'prior_adjusted': 0.26}
    """
    index = reference_index(y_true)  # y_pred and the weights are paired by position
    yt = _labels(y_true, "y_true")
    yp = _labels(y_pred, "y_pred", index=index, reference="y_true")
    if yt.shape != yp.shape:
        raise ValueError(f"y_true and y_pred must have the same length; got {yt.size} and {yp.size}")
    w = _weights(sample_weight, yt.size, index=index, reference="y_true")
    classes = np.unique(yt)
    wrong = (yt != yp).astype(float)
    out = {}
    cond = np.empty(len(classes))
    share = np.empty(len(classes))
    for k, c in enumerate(classes):
        mask = yt == c
        cond[k] = np.dot(w[mask], wrong[mask]) / w[mask].sum() if w[mask].sum() > 0 else np.nan
        share[k] = w[mask].sum()
        out[f"conditional[{c}]"] = float(cond[k])
    out["unadjusted"] = float(np.dot(w, wrong) / w.sum())
    if priors is not None:
        pri = pd.Series(priors, dtype=float)
        if (pri < 0).any() or not np.isfinite(pri).all() or pri.sum() <= 0:
            raise ValueError("priors must be finite, non-negative with a positive sum; got "
                             f"{ {_plain(k): float(v) for k, v in pri.items()} }")
        unknown = [c for c in pri.index if c not in set(classes.tolist())]
        if unknown:
            raise ValueError(f"priors names classes absent from y_true: {unknown!r}")
        p = pri.reindex(classes, fill_value=0.0).to_numpy() / pri.sum()
        if np.any((p > 0) & np.isnan(cond)):
            out["prior_adjusted"] = np.nan
        else:
            out["prior_adjusted"] = float(np.nansum(p * cond))
    return pd.Series(out, name="misclassification_rate")
