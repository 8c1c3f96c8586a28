"""The classification target of the models: its classes and their codes.

Part of :mod:`dtdecide.models` (above :mod:`dtdecide.decision`); see the architecture page.
"""

import numpy as np
from sklearn.utils.multiclass import check_classification_targets


def class_codes(y):
    """``(classes, codes)`` of a 1-D classification target, refusing fewer than 2 classes.

    ``classes`` are the sorted distinct labels and ``codes`` each case's position among
    them (``np.unique(y, return_inverse=True)``), after scikit-learn's check that ``y``
    is a classification target.
    """
    check_classification_targets(y)
    classes, codes = np.unique(y, return_inverse=True)
    if classes.shape[0] < 2:
        raise ValueError(f"y must hold at least 2 classes; got one class {classes.tolist()}")
    return classes, codes
