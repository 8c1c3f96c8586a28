"""Plot of a pruning study: the measure of every subtree against its number of leaves.

Layer 6 (studies and displays) of :mod:`dtdecide.tree` (``_studies``); see the architecture page.
"""

import numpy as np

from ._study import _LABELS, PruningStudy

__all__ = ["PruningStudyDisplay"]


class PruningStudyDisplay:
    """Training, validation and cross-validated measure of every subtree.

    Draws the assessment measure (average profit by default) of each subtree of the
    pruning sequence against its number of leaves, for training data, validation data
    and cross-validation when available, with the 1-SE band around the cross-validated
    mean and the selected subtree marked. Build it with :meth:`from_study` or
    :meth:`from_estimator`; matplotlib is imported only by :meth:`plot`.

    Parameters
    ----------
    n_leaves : array-like of int
        Number of leaves of each subtree.
    train : array-like of float
        Training measure of each subtree.
    valid : array-like of float, default=None
        Validation measure.
    cv_mean, cv_se : array-like of float, default=None
        Cross-validated mean and standard error.
    selected_index : int, default=None
        Position of the selected subtree.
    measure_label : str, default="average profit"
        Label of the y axis.
    se_rule : float, default=1.0
        Width of the band around the cross-validated mean, in standard errors.

    Attributes
    ----------
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure
    lines_ : dict
        The drawn artists by name (``"train"``, ``"valid"``, ``"cv"``, ``"band"``,
        ``"selected"``).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from dtdecide import PruningStudyDisplay
    >>> disp = PruningStudyDisplay([5, 3, 1], [2.0, 1.8, 1.0], valid=[1.2, 1.5, 1.0],
    ...                            selected_index=1).plot(title="pruning")
    >>> disp.ax_.get_title(), sorted(disp.lines_)
    ('pruning', ['selected', 'train', 'valid'])

    From a fitted tree and validation data (``from_study`` draws a fitted
    :class:`PruningStudy` the same way):

    >>> import numpy as np, pandas as pd
    >>> from dtdecide import DecisionMatrix, ProfitTreeClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame({"age": rng.integers(20, 70, 600), "noise": rng.random(600)})
    >>> y = np.where((X["age"] > 50) & (rng.random(600) < 0.6), "yes", "no")
    >>> m = DecisionMatrix({"call": [20, -2], "skip": [0, 0]}, levels=["yes", "no"])
    >>> tree = ProfitTreeClassifier(decision_matrix=m, max_depth=4).fit(X[:400], y[:400])
    >>> disp = PruningStudyDisplay.from_estimator(tree, X[400:], y[400:])
    >>> bool(disp.study_.selected_n_leaves_ <= tree.get_n_leaves()), disp.ax_.get_ylabel()
    (True, 'average profit')
    """

    def __init__(self, n_leaves, train, *, valid=None, cv_mean=None, cv_se=None,
                 selected_index=None, measure_label="average profit", se_rule=1.0):
        self.n_leaves = np.asarray(n_leaves)
        self.train = np.asarray(train, dtype=np.float64)
        self.valid = None if valid is None else np.asarray(valid, dtype=np.float64)
        self.cv_mean = None if cv_mean is None else np.asarray(cv_mean, dtype=np.float64)
        self.cv_se = None if cv_se is None else np.asarray(cv_se, dtype=np.float64)
        self.selected_index = selected_index
        self.measure_label = measure_label
        self.se_rule = se_rule
        n = self.n_leaves.shape[0]
        for name in ("train", "valid", "cv_mean", "cv_se"):
            arr = getattr(self, name)
            if arr is not None and arr.shape != (n,):
                raise ValueError(
                    f"{name} must have one value per subtree ({n}); got shape {arr.shape}"
                )
        if (self.cv_mean is None) != (self.cv_se is None):
            raise ValueError("give cv_mean and cv_se together")
        if selected_index is not None and not 0 <= int(selected_index) < n:
            raise ValueError(f"selected_index must be in [0, {n}); got {selected_index}")

    @classmethod
    def from_study(cls, study, *, ax=None):
        """Plot a fitted :class:`PruningStudy`.

        Parameters
        ----------
        study : PruningStudy
            A fitted study.
        ax : matplotlib Axes, default=None
            Where to draw; a new figure when None.

        Returns
        -------
        PruningStudyDisplay
        """
        if not isinstance(study, PruningStudy) or not hasattr(study, "results_"):
            raise TypeError(
                "study must be a fitted PruningStudy (call fit first); got "
                + ("an unfitted PruningStudy" if isinstance(study, PruningStudy)
                   else type(study).__name__)
            )
        t = study.results_
        label = _LABELS[study.measure_]
        if study.measure_ == "lift":
            label = f"lift at {study.depth_fraction:.0%}"
        disp = cls(
            t["n_leaves"].to_numpy(),
            t["train_measure"].to_numpy(),
            valid=t["valid_measure"].to_numpy() if "valid_measure" in t else None,
            cv_mean=t["cv_mean"].to_numpy() if "cv_mean" in t else None,
            cv_se=t["cv_se"].to_numpy() if "cv_se" in t else None,
            selected_index=study.selected_index_,
            measure_label=label,
            se_rule=study.se_rule,
        )
        return disp.plot(ax=ax)

    @classmethod
    def from_estimator(cls, estimator, X_valid=None, y_valid=None, *, costs_valid=None,
                       sample_weight_valid=None, X_train=None, y_train=None,
                       costs_train=None, sample_weight_train=None, ax=None, **params):
        """Run a :class:`PruningStudy` on a fitted tree and plot it.

        Parameters
        ----------
        estimator : fitted ProfitTreeClassifier or ProfitTreeRegressor
            The tree whose pruning sequence is studied (it is not refitted).
        X_valid, y_valid, costs_valid, sample_weight_valid : optional
            Validation data.
        X_train, y_train, costs_train, sample_weight_train : optional
            Training data, for cross-validation.
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure when None.
        **params
            Parameters of :class:`PruningStudy` (``measure``, ``cv``, ...).

        Returns
        -------
        PruningStudyDisplay
            With the study in ``study_``.
        """
        study = PruningStudy(estimator, **params).fit(
            X_valid, y_valid, costs_valid=costs_valid,
            sample_weight_valid=sample_weight_valid, X_train=X_train, y_train=y_train,
            costs_train=costs_train, sample_weight_train=sample_weight_train,
        )
        disp = cls.from_study(study, ax=ax)
        disp.study_ = study
        return disp

    def plot(self, ax=None, *, title=None):
        """Draw the curves.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; a new figure when None.
        title : str, default=None
            Title of the axes; None leaves it empty.

        Returns
        -------
        PruningStudyDisplay
            This display, with ``ax_``, ``figure_`` and ``lines_`` set.
        """
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots()
        lines = {}
        x = self.n_leaves
        (lines["train"],) = ax.plot(x, self.train, marker=".", drawstyle="steps-post",
                                    label="training")
        if self.valid is not None:
            (lines["valid"],) = ax.plot(x, self.valid, marker=".", drawstyle="steps-post",
                                        label="validation")
        if self.cv_mean is not None:
            (lines["cv"],) = ax.plot(x, self.cv_mean, marker=".", drawstyle="steps-post",
                                     label="cross-validation")
            width = self.se_rule * self.cv_se
            lines["band"] = ax.fill_between(
                x, self.cv_mean - width, self.cv_mean + width, step="post", alpha=0.2,
                color=lines["cv"].get_color(),
                label=f"cross-validation ± {self.se_rule:g} SE",
            )
        if self.selected_index is not None:
            k = int(self.selected_index)
            curve = (self.valid if self.valid is not None
                     else self.cv_mean if self.cv_mean is not None else self.train)
            lines["selected"] = ax.axvline(x[k], color="0.4", linestyle="--",
                                           label=f"selected: {x[k]} leaves")
            ax.plot([x[k]], [curve[k]], marker="o", color="black", linestyle="none")
        ax.set_xlabel("number of leaves")
        ax.set_ylabel(self.measure_label)
        if title is not None:
            ax.set_title(title)
        ax.legend()
        self.ax_ = ax
        self.figure_ = ax.figure
        self.lines_ = lines
        return self
