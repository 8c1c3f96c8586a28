"""The classification target of the models: its classes and their codes.

Part of :mod:`dtdecide.models` (above :mod:`dtdecide.decision`); see the architecture page.
"""

import numpy as np
import pandas as pd
from sklearn.utils.multiclass import check_classification_targets

from ..decision._validation import (
    check_class_count,
    check_same_index,
    has_missing_labels,
    reference_index,
)


def check_fit_inputs(X, y, sample_weight=None):
    """The checks of ``fit(X, y, sample_weight)`` before scikit-learn converts them:
    a pandas ``y`` or ``sample_weight`` indexed differently from ``X`` is refused (never
    paired by position), and so is a ``y`` with missing labels (NaN, None, ``pd.NA``)."""
    index = reference_index(X)
    check_same_index(y, index, "y")
    check_same_index(sample_weight, index, "sample_weight")
    if y is None:
        return
    labels = y.to_numpy(dtype=object) if isinstance(y, (pd.Series, pd.DataFrame)) else y
    try:
        labels = np.asarray(labels, dtype=object).reshape(-1)
    except (TypeError, ValueError):  # left to scikit-learn's own checks
        return
    if has_missing_labels(labels):
        raise ValueError("y contains missing values (NaN, None or pd.NA); drop those cases "
                         "first")


def class_codes(y):
    """``(classes, codes)`` of a 1-D classification target, refusing fewer than 2 classes.

    ``classes`` are the sorted distinct labels and ``codes`` each case's position among
    them (``np.unique(y, return_inverse=True)``), after scikit-learn's check that ``y``
    is a classification target; a target with an absurd number of classes
    (:func:`~dtdecide.decision._validation.check_class_count`) is refused.
    """
    check_classification_targets(y)
    classes = np.unique(y)
    check_class_count(classes.shape[0], np.shape(y)[0])  # before any array sized by them
    codes = np.searchsorted(classes, y)
    if classes.shape[0] == 0:
        raise ValueError("y must hold at least 2 classes; got no cases")
    if classes.shape[0] < 2:
        raise ValueError(f"y must hold at least 2 classes; got one class {classes.tolist()}")
    return classes, codes
