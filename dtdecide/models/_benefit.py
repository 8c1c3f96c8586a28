"""Benefit matrices and the benefit-based performance metric.

A *benefit matrix* ``b`` has one row per actual class and one column per predicted
class, in the order of the sorted class labels (``classes_``): ``b[i, j]`` is what
classifying a case of class ``i`` as class ``j`` is worth. As in the source document,
a correct classification is worth something (``b[i, i] >= 0``) and every error costs
something (``b[i, j] < 0`` for ``i != j``).

With priors ``pi`` and ``F[i, j]`` the fraction of class ``i`` placed in class ``j``,
the expected benefit is ``B = sum_i sum_j pi_i F[i, j] b[i, j]``; its upper bound (every
case classified correctly) is ``sum_i pi_i b[i, i]`` and the metric is
``mu = B / sum_i pi_i b[i, i]``.

For a binary scorer, cases with score ``s <= t`` are placed in class 0 and cases with
``s > t`` in class 1, so ``F[0, 0] = F_0(t)`` and ``F[1, 0] = F_1(t)`` are the empirical
cumulative distributions of the scores of each class.
"""

from numbers import Real

import numpy as np
import pandas as pd
from sklearn.metrics import confusion_matrix

from ..decision._estimator import _level_codes
from ..decision._kernels import _check_priors
from ..decision._validation import (
    check_same_index,
    float_array,
    has_missing_labels,
    reference_index,
)

__all__ = [
    "benefit_curve",
    "benefit_eta",
    "benefit_from_confusion",
    "benefit_metric",
    "benefit_score",
    "best_benefit_threshold",
    "one_vs_rest_benefits",
]


# --------------------------------------------------------------------------- validation
def check_benefit_matrix(benefit_matrix, *, n_classes=None, classes=None, name="benefit_matrix"):
    """Validate a benefit matrix and return it as a float ndarray.

    Parameters
    ----------
    benefit_matrix : array-like or DataFrame of shape (n_classes, n_classes)
        Rows are actual classes, columns predicted classes. A DataFrame whose index
        and columns hold the class labels is reordered to ``classes``; any other
        DataFrame or array is read positionally, in the order of ``classes``.
    n_classes : int, optional
        Required number of classes.
    classes : array-like, optional
        Class labels in the order the rows/columns must follow.
    name : str, default="benefit_matrix"
        Parameter name used in error messages.

    Returns
    -------
    ndarray of shape (n_classes, n_classes), dtype float64

    Raises
    ------
    ValueError
        If the matrix is not square, has the wrong size, holds non-finite values, or
        does not satisfy ``b[i, i] >= 0 > b[i, j]`` for ``i != j``.
    """
    if classes is not None:
        classes = np.asarray(classes)
        n_classes = len(classes)
    values = matrix_values(benefit_matrix, classes, name)
    if values.ndim != 2 or values.shape[0] != values.shape[1] or values.shape[0] < 2:
        raise ValueError(
            f"{name} must be a square 2-D array with at least 2 rows (actual classes) "
            f"and as many columns (predicted classes); got shape {values.shape}"
        )
    if n_classes is not None and values.shape[0] != n_classes:
        raise ValueError(
            f"{name} must have one row and one column per class ({n_classes} classes"
            + (f": {np.asarray(classes).tolist()}" if classes is not None else "")
            + f"); got shape {values.shape}"
        )
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{name} must hold finite numbers; got {values.tolist()}")
    diag = np.diag(values)
    if np.any(diag < 0):
        raise ValueError(
            f"{name} must have a non-negative benefit for every correct classification "
            f"(diagonal >= 0); got diagonal {diag.tolist()}"
        )
    off = values[~np.eye(values.shape[0], dtype=bool)]
    if np.any(off >= 0):
        raise ValueError(
            f"{name} must have a negative benefit (a cost) for every misclassification "
            f"(off-diagonal < 0); got {values.tolist()}"
        )
    return values


def class_matrix(matrix, classes, *, name):
    """A class-level :class:`~dtdecide.DecisionMatrix` as a class-by-class array.

    The matrix's levels are the actual classes and its decisions the predicted classes
    (decision ``str(c)`` for class ``c``), in any order; the result follows ``classes``
    on both axes, in profit orientation (a loss matrix negated).

    Parameters
    ----------
    matrix : DecisionMatrix
        A categorical profit or loss matrix without cost variables or case-specific
        consequences, one level and one decision per class.
    classes : ndarray of shape (n_classes,)
        The fitted class labels.
    name : str
        The parameter name used in error messages.

    Returns
    -------
    values : ndarray of shape (n_classes, n_classes)
        ``values[i, j]``: profit of predicting ``classes[j]`` for a case of
        ``classes[i]``.
    priors : ndarray of shape (n_classes,) or None
        The matrix's priors in the order of ``classes`` (None when it has none).
    """
    if matrix.is_interval or matrix.kind not in ("profit", "loss"):
        raise ValueError(
            f"{name} as a DecisionMatrix must be a categorical profit or loss matrix "
            f"(one level per class); got "
            + ("an interval matrix" if matrix.is_interval else f"kind={matrix.kind!r}")
        )
    if matrix.is_case_specific or matrix.cost_variables:
        raise ValueError(
            f"{name} as a DecisionMatrix must hold constant class-level consequences; "
            "this one needs case costs (cost variables or case-specific consequences)"
        )
    classes = np.asarray(classes)
    if matrix.n_levels != len(classes):
        raise ValueError(
            f"{name} must have one level per class ({classes.tolist()}); got levels "
            f"{list(matrix.levels)!r}"
        )
    rows = _level_codes(classes, matrix, name=name)
    labels = [str(c.item() if isinstance(c, np.generic) else c) for c in classes]
    position = {d: j for j, d in enumerate(matrix.decisions)}
    if sorted(position) != sorted(labels):
        raise ValueError(
            f"{name} must have one decision per class, named by the class labels "
            f"{labels!r} (predicting that class); got decisions {list(matrix.decisions)!r}"
        )
    cols = [position[label] for label in labels]
    values = np.asarray(matrix.profit_values, dtype=np.float64)[np.ix_(rows, cols)]
    priors = None
    if matrix.priors is not None:
        priors = np.asarray(matrix.priors, dtype=np.float64)[rows]
    return values, priors


def choose_priors(priors, matrix_priors, *, name):
    """The ``priors`` parameter, or else the decision matrix's priors (None if neither);
    refused when both are given."""
    if priors is not None and matrix_priors is not None:
        raise ValueError(
            f"priors are given twice: as priors= and in the DecisionMatrix {name}; "
            "give them in one place"
        )
    return priors if priors is not None else matrix_priors


def matrix_values(matrix, classes, name):
    """A class-by-class matrix as a float ndarray: a DataFrame labelled by the classes
    reordered to ``classes``, anything else read positionally."""
    if isinstance(matrix, pd.DataFrame):
        return _frame_values(matrix, classes, name)
    try:
        return np.asarray(matrix, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"{name} must be a square numeric array-like; got {matrix!r}"
        ) from exc


def _frame_values(frame, classes, name):
    if classes is not None:
        idx, cols = list(frame.index), list(frame.columns)
        wanted = [c.item() if isinstance(c, np.generic) else c for c in classes]
        if set(idx) == set(wanted) and set(cols) == set(wanted) and len(idx) == len(wanted):
            return frame.loc[wanted, wanted].to_numpy(dtype=np.float64)
        if not (
            isinstance(frame.index, pd.RangeIndex) and isinstance(frame.columns, pd.RangeIndex)
        ):
            raise ValueError(
                f"{name} as a DataFrame must be labelled by the classes {wanted} on both "
                f"axes (rows actual, columns predicted); got index {idx} and columns {cols}"
            )
    return frame.to_numpy(dtype=np.float64)


def check_priors(priors, n_classes, *, name="priors", classes=None):
    """Validate priors: ``n_classes`` non-negative numbers, not all zero; rescaled to 1.

    The decision engine's priors check (:mod:`dtdecide.decision`), for a flat vector. A
    dict or Series is matched to ``classes`` by label (never taken in its own order);
    where the classes are not known (``classes=None``) it is refused.
    """
    if isinstance(priors, (dict, pd.Series)):  # matched to the classes by label
        return _check_priors(priors, n_classes, name, classes)
    try:
        values = np.asarray(priors, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a 1-D array of numbers; got {priors!r}") from exc
    return _check_priors(values, n_classes, name)


def _check_binary_target(y_true, y_score, pos_label, sample_weight):
    index = reference_index(y_true)  # the scores and weights are paired by position
    check_same_index(y_score, index, "y_score", reference="y_true")
    check_same_index(sample_weight, index, "sample_weight", reference="y_true")
    y_true = y_true.to_numpy() if isinstance(y_true, (pd.Series, pd.Index)) else \
        np.asarray(y_true)
    y_score = float_array(y_score, "y_score", "numeric scores")
    if y_true.ndim != 1 or y_score.ndim != 1 or y_true.shape[0] != y_score.shape[0]:
        raise ValueError(
            "y_true and y_score must be 1-D arrays of the same length; got shapes "
            f"{y_true.shape} and {y_score.shape}"
        )
    if y_true.shape[0] == 0:
        raise ValueError("y_true must not be empty")
    if has_missing_labels(y_true):
        raise ValueError("y_true must not contain missing values (NaN, None or pd.NA)")
    if not np.all(np.isfinite(y_score)):
        raise ValueError("y_score must hold finite numbers (no NaN or infinity)")
    labels = np.unique(y_true)
    if pos_label is None:
        if labels.shape[0] != 2:
            raise ValueError(
                f"y_true must hold exactly two classes (or give pos_label); got {labels.tolist()}"
            )
        pos_label = labels[1]
    elif labels.shape[0] > 2:
        raise ValueError(f"y_true must hold at most two classes; got {labels.tolist()}")
    is_pos = y_true == pos_label
    if sample_weight is None:
        weight = np.ones(y_true.shape[0])
    else:
        weight = np.asarray(sample_weight, dtype=np.float64).reshape(-1)
        if weight.shape[0] != y_true.shape[0]:
            raise ValueError(
                f"sample_weight must have one value per case ({y_true.shape[0]}); "
                f"got {weight.shape[0]}"
            )
        if not np.all(np.isfinite(weight)) or np.any(weight < 0):
            raise ValueError("sample_weight must be finite and non-negative")
    return is_pos, y_score, weight


def _binary_priors(is_pos, weight, priors):
    n1 = weight[is_pos].sum()
    n0 = weight[~is_pos].sum()
    if priors is None:
        if n0 <= 0 or n1 <= 0:
            raise ValueError(
                "y_true must contain cases of both classes (pos_label and the other one) "
                "with positive weight to estimate the priors; give priors= otherwise"
            )
        return np.array([n0, n1]) / (n0 + n1)
    pi = check_priors(priors, 2)
    for c, (n, p) in enumerate(((n0, pi[0]), (n1, pi[1]))):
        if p > 0 and n <= 0:
            raise ValueError(
                f"priors gives class {c} the prior {p}, but y_true has no case of that "
                "class with positive weight, so its score distribution is unknown"
            )
    return pi


# --------------------------------------------------------------------------- binary metric
def _binary_benefit(F0, F1, pi, b):
    """B(t) from the cumulative score distributions; vectorised over thresholds."""
    return (
        pi[0] * F0 * b[0, 0]
        + pi[0] * (1.0 - F0) * b[0, 1]
        + pi[1] * F1 * b[1, 0]
        + pi[1] * (1.0 - F1) * b[1, 1]
    )


def benefit_curve(
    y_true, y_score, benefit_matrix, *, priors=None, pos_label=None, sample_weight=None
):
    """Expected benefit ``B(t)`` of a binary scorer at every distinct threshold.

    A case is placed in class 1 when its score exceeds the threshold ``t`` and in
    class 0 otherwise. ``F_0(t)`` and ``F_1(t)`` are the (weighted) fractions of class 0
    and class 1 cases with score ``<= t``, and

    ``B(t) = pi_0 F_0 b_00 + pi_0 (1 - F_0) b_01 + pi_1 F_1 b_10 + pi_1 (1 - F_1) b_11``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Actual classes (two labels).
    y_score : array-like of shape (n_samples,)
        Scores, higher meaning more likely class 1 (for example ``predict_proba(X)[:, 1]``).
    benefit_matrix : array-like of shape (2, 2)
        ``b[i, j]``: benefit of classifying a class ``i`` case as class ``j``; class 0 is
        the negative class and class 1 the positive class. Requires
        ``b[i, i] >= 0 > b[i, j]``.
    priors : array-like of shape (2,), optional
        Class priors ``(pi_0, pi_1)``; rescaled to sum to 1. By default the (weighted)
        class proportions of ``y_true``.
    pos_label : label, optional
        The label of class 1. By default the larger of the two labels.
    sample_weight : array-like of shape (n_samples,), optional
        Case weights (frequencies).

    Returns
    -------
    curve : DataFrame
        One row per threshold, ascending: ``-inf`` (every case in class 1) followed by
        every distinct score (the largest places every case in class 0). Columns
        ``threshold``, ``F0``, ``F1``, ``benefit`` (``B(t)``) and ``mu``
        (``B(t) / (pi_0 b_00 + pi_1 b_11)``, NaN when that bound is 0).

    See Also
    --------
    best_benefit_threshold : the threshold with the largest benefit.
    benefit_metric : ``mu`` at one threshold.

    Examples
    --------
    >>> from dtdecide.models import benefit_curve
    >>> curve = benefit_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], [[1, -1], [-2, 3]])
    >>> curve[["threshold", "F0", "F1", "benefit"]]
       threshold   F0   F1  benefit
    0       -inf  0.0  0.0     1.00
    1       0.10  0.5  0.0     1.50
    2       0.35  0.5  0.5     0.25
    3       0.40  1.0  0.5     0.75
    4       0.80  1.0  1.0    -0.50
    """
    is_pos, score, weight = _check_binary_target(y_true, y_score, pos_label, sample_weight)
    b = check_benefit_matrix(benefit_matrix, n_classes=2)
    pi = _binary_priors(is_pos, weight, priors)

    order = np.argsort(score, kind="stable")
    s_sorted = score[order]
    w1 = np.where(is_pos, weight, 0.0)[order]
    w0 = np.where(is_pos, 0.0, weight)[order]
    # the last position of each run of equal scores closes that threshold
    last = np.r_[s_sorted[1:] != s_sorted[:-1], True]
    cum0 = np.cumsum(w0)[last]
    cum1 = np.cumsum(w1)[last]
    n0, n1 = w0.sum(), w1.sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        F0 = np.r_[0.0, cum0 / n0] if n0 > 0 else np.zeros(cum0.shape[0] + 1)
        F1 = np.r_[0.0, cum1 / n1] if n1 > 0 else np.zeros(cum1.shape[0] + 1)
    thresholds = np.r_[-np.inf, s_sorted[last]]
    benefit = _binary_benefit(F0, F1, pi, b)
    bound = pi[0] * b[0, 0] + pi[1] * b[1, 1]
    mu = benefit / bound if bound > 0 else np.full_like(benefit, np.nan)
    return pd.DataFrame({"threshold": thresholds, "F0": F0, "F1": F1, "benefit": benefit, "mu": mu})


def best_benefit_threshold(
    y_true, y_score, benefit_matrix, *, priors=None, pos_label=None, sample_weight=None
):
    """Threshold that maximises the expected benefit ``B(t)`` of a binary scorer.

    Every distinct score is tried (not a grid), plus ``-inf`` (every case placed in
    class 1). Cases with score ``<= threshold`` go to class 0. On ties the smallest
    threshold wins.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        As in :func:`benefit_curve`.
    y_score : array-like of shape (n_samples,)
        As in :func:`benefit_curve`.
    benefit_matrix : array-like of shape (2, 2)
        As in :func:`benefit_curve`.
    priors : array-like of shape (2,), optional
        As in :func:`benefit_curve`.
    pos_label : label, optional
        As in :func:`benefit_curve`.
    sample_weight : array-like of shape (n_samples,), optional
        As in :func:`benefit_curve`.

    Returns
    -------
    threshold : float
        Possibly ``-inf`` when predicting class 1 for everyone is best.

    Examples
    --------
    >>> from dtdecide.models import best_benefit_threshold
    >>> float(best_benefit_threshold([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], [[1, -1], [-2, 3]]))
    0.1
    """
    curve = benefit_curve(
        y_true,
        y_score,
        benefit_matrix,
        priors=priors,
        pos_label=pos_label,
        sample_weight=sample_weight,
    )
    return float(curve["threshold"].to_numpy()[np.argmax(curve["benefit"].to_numpy())])


def benefit_metric(
    y_true,
    y_score,
    benefit_matrix,
    *,
    threshold=None,
    priors=None,
    pos_label=None,
    sample_weight=None,
):
    """Benefit-based performance metric ``mu = B / (pi_0 b_00 + pi_1 b_11)`` of a scorer.

    ``mu`` is 1 for a perfect separation of the classes and can be negative when the
    errors cost more than the correct classifications earn.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        As in :func:`benefit_curve`.
    y_score : array-like of shape (n_samples,)
        As in :func:`benefit_curve`.
    benefit_matrix : array-like of shape (2, 2)
        As in :func:`benefit_curve`.
    threshold : float, optional
        Cases with ``score <= threshold`` go to class 0. By default the best threshold
        (the largest ``B(t)`` over all distinct scores), i.e. the benefit the scorer can
        reach.
    priors : array-like of shape (2,), optional
        As in :func:`benefit_curve`.
    pos_label : label, optional
        As in :func:`benefit_curve`.
    sample_weight : array-like of shape (n_samples,), optional
        As in :func:`benefit_curve`.

    Returns
    -------
    mu : float
        The benefit at the threshold divided by the benefit of a perfect classifier.

    Raises
    ------
    ValueError
        If ``pi_0 b_00 + pi_1 b_11`` is 0 (no benefit to normalise by).

    Examples
    --------
    >>> from dtdecide.models import benefit_metric
    >>> y, s, b = [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], [[1, -1], [-2, 3]]
    >>> benefit_metric(y, s, b)                    # best threshold: B = 1.5, bound = 2
    0.75
    >>> benefit_metric(y, s, b, threshold=0.5)     # F0 = 1, F1 = 0.5: B = 0.75
    0.375
    """
    is_pos, score, weight = _check_binary_target(y_true, y_score, pos_label, sample_weight)
    b = check_benefit_matrix(benefit_matrix, n_classes=2)
    pi = _binary_priors(is_pos, weight, priors)
    bound = pi[0] * b[0, 0] + pi[1] * b[1, 1]
    if bound <= 0:
        raise ValueError(
            "benefit_matrix gives no benefit for correct classification under these priors "
            "(pi_0 b_00 + pi_1 b_11 = 0), so mu is undefined"
        )
    if threshold is None:
        curve = benefit_curve(
            y_true,
            y_score,
            b,
            priors=pi,
            pos_label=pos_label,
            sample_weight=sample_weight,
        )
        return float(curve["benefit"].max() / bound)
    if not isinstance(threshold, Real) or isinstance(threshold, (bool, np.bool_)):
        raise TypeError(f"threshold must be a real number or None; got {threshold!r}")
    if np.isnan(threshold):
        raise ValueError(f"threshold must be a real number, not NaN, or None; got {threshold!r}")
    below = score <= threshold
    n0, n1 = weight[~is_pos].sum(), weight[is_pos].sum()
    F0 = weight[~is_pos & below].sum() / n0 if n0 > 0 else 0.0
    F1 = weight[is_pos & below].sum() / n1 if n1 > 0 else 0.0
    return float(_binary_benefit(F0, F1, pi, b) / bound)


def benefit_eta(benefit_matrix):
    """Weight of the class-0 terms in benefit-weighted logistic regression.

    ``eta = (b_00 - b_01) / (b_11 - b_10)``: what getting a class 0 case right is worth
    relative to getting a class 1 case right. A calibrated posterior ``p = P(1 | x)``
    maximises the expected benefit with the threshold ``eta / (1 + eta)``.

    Parameters
    ----------
    benefit_matrix : array-like of shape (2, 2)
        Benefit ``b[i][j]`` of predicting class ``j`` for a case of class ``i``
        (costs are negative benefits).

    Returns
    -------
    eta : float
        The weight of the class-0 terms of the log loss.

    Examples
    --------
    >>> from dtdecide.models import benefit_eta
    >>> benefit_eta([[1, -1], [-2, 3]])        # (1 + 1) / (3 + 2)
    0.4
    """
    b = check_benefit_matrix(benefit_matrix, n_classes=2)
    return float((b[0, 0] - b[0, 1]) / (b[1, 1] - b[1, 0]))


def one_vs_rest_benefits(benefit_matrix, priors):
    """Binary benefit matrices of the one-vs-rest classifiers of a multiclass problem.

    For the classifier of class ``k`` (class ``k`` is its class 1, all others its
    class 0), following the source document:
    ``b_11 = b[k, k]``, ``b_00 = sum_{i != k} pi_i b[i, i]``,
    ``b_01 = sum_{i != k} pi_i b[i, k]`` and ``b_10 = sum_{i != k} pi_i b[k, i]``.
    The sums are weighted by the priors and not renormalised over the other classes.

    Parameters
    ----------
    benefit_matrix : array-like of shape (n_classes, n_classes)
        Benefit ``b[i][j]`` of predicting class ``j`` for a case of class ``i``
        (costs are negative benefits).
    priors : array-like of shape (n_classes,)
        Rescaled to sum to 1.

    Returns
    -------
    ndarray of shape (n_classes, 2, 2)
        ``[k]`` is ``[[b_00, b_01], [b_10, b_11]]`` for the classifier of class ``k``.

    Examples
    --------
    >>> from dtdecide.models import one_vs_rest_benefits
    >>> b = [[4, -1, -2], [-3, 2, -1], [-2, -4, 6]]
    >>> one_vs_rest_benefits(b, [0.5, 0.25, 0.25])[0].tolist()
    [[2.0, -1.25], [-0.75, 4.0]]
    """
    b = check_benefit_matrix(benefit_matrix)
    n = b.shape[0]
    pi = check_priors(priors, n)
    out = np.empty((n, 2, 2))
    for k in range(n):
        rest = np.arange(n) != k
        out[k, 0, 0] = np.sum(pi[rest] * np.diag(b)[rest])
        out[k, 0, 1] = np.sum(pi[rest] * b[rest, k])
        out[k, 1, 0] = np.sum(pi[rest] * b[k, rest])
        out[k, 1, 1] = b[k, k]
    return out


# --------------------------------------------------------------------------- multiclass
def benefit_from_confusion(confusion, benefit_matrix, priors=None):
    """Expected benefit ``B = sum_i sum_j pi_i F[i, j] b[i, j]`` from a confusion matrix.

    Parameters
    ----------
    confusion : array-like of shape (n_classes, n_classes)
        Counts (or weights): rows actual classes, columns predicted classes, as
        :func:`sklearn.metrics.confusion_matrix` returns them.
    benefit_matrix : array-like of shape (n_classes, n_classes)
        Same row/column order; ``b[i, i] >= 0 > b[i, j]``.
    priors : array-like of shape (n_classes,), optional
        By default the row totals of ``confusion`` (the observed class proportions).

    Returns
    -------
    benefit : float
        NaN when a class with a positive prior has no case (its row of ``F`` is
        undefined).

    Examples
    --------
    >>> from dtdecide.models import benefit_from_confusion
    >>> conf = [[8, 2], [1, 9]]                  # F = [[.8, .2], [.1, .9]]
    >>> round(benefit_from_confusion(conf, [[1, -1], [-2, 3]], priors=[0.5, 0.5]), 6)
    1.55
    """
    conf = np.asarray(confusion, dtype=np.float64)
    if conf.ndim != 2 or conf.shape[0] != conf.shape[1]:
        raise ValueError(f"confusion must be a square 2-D array; got shape {conf.shape}")
    if not np.all(np.isfinite(conf)) or np.any(conf < 0):
        raise ValueError("confusion must hold finite non-negative counts")
    n = conf.shape[0]
    b = check_benefit_matrix(benefit_matrix, n_classes=n)
    row = conf.sum(axis=1)
    if priors is None:
        if row.sum() <= 0:
            raise ValueError("confusion must hold at least one case to estimate the priors")
        pi = row / row.sum()
    else:
        pi = check_priors(priors, n)
    if np.any((pi > 0) & (row <= 0)):
        return float("nan")
    with np.errstate(invalid="ignore", divide="ignore"):
        F = np.where(row[:, None] > 0, conf / np.where(row > 0, row, 1.0)[:, None], 0.0)
    return float(np.sum(pi[:, None] * F * b))


def benefit_score(
    y_true,
    y_pred,
    benefit_matrix,
    *,
    labels=None,
    priors=None,
    sample_weight=None,
    normalize=True,
):
    """Benefit of hard predictions (any number of classes), normalised to ``mu`` by default.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Actual and predicted classes.
    benefit_matrix : array-like of shape (n_classes, n_classes)
        Rows actual, columns predicted, in the order of ``labels``.
    labels : array-like, optional
        The classes, in matrix order. By default the sorted labels found in
        ``y_true`` and ``y_pred``.
    priors : array-like of shape (n_classes,), optional
        By default the (weighted) class proportions of ``y_true``.
    sample_weight : array-like of shape (n_samples,), optional
        Case weights.
    normalize : bool, default=True
        Return ``mu = B / sum_i pi_i b[i, i]`` (True) or ``B`` itself (False).

    Returns
    -------
    score : float
        The benefit metric of the scores.

    Examples
    --------
    >>> from dtdecide.models import benefit_score
    >>> b = [[1, -1], [-2, 3]]
    >>> benefit_score([0, 0, 1, 1], [0, 1, 1, 1], b)     # B = .5(.5 - .5) + .5 * 3 = 1.5
    0.75
    >>> benefit_score([0, 0, 1, 1], [0, 1, 1, 1], b, normalize=False)
    1.5
    """
    y_true = np.asarray(y_true)
    y_pred = np.asarray(y_pred)
    if labels is None:
        labels = np.unique(np.concatenate([y_true.reshape(-1), y_pred.reshape(-1)]))
    labels = np.asarray(labels)
    b = check_benefit_matrix(benefit_matrix, classes=labels)
    unknown = np.setdiff1d(np.unique(y_pred), labels)
    if unknown.size:
        raise ValueError(f"y_pred holds labels not in labels: {unknown.tolist()}")
    conf = confusion_matrix(y_true, y_pred, labels=labels, sample_weight=sample_weight)
    if priors is None:
        row = conf.sum(axis=1).astype(np.float64)
        if row.sum() <= 0:
            raise ValueError("y_true must not be empty")
        pi = row / row.sum()
    else:
        pi = check_priors(priors, len(labels), classes=labels)
    benefit = benefit_from_confusion(conf, b, pi)
    if not normalize:
        return benefit
    bound = float(np.sum(pi * np.diag(b)))
    if bound <= 0:
        raise ValueError(
            "benefit_matrix gives no benefit for correct classification under these "
            "priors (sum_i pi_i b_ii = 0), so mu is undefined; use normalize=False"
        )
    return benefit / bound
