"""Hand edits of a fitted profit tree: the estimators' public edit methods (a mixin).

``set_decision``, ``split_candidates``, ``split``, ``regrow`` and ``prune_node`` check
their arguments and call the edit functions of :mod:`dtdecide.tree._algorithms._edit`,
which rebuild the node arrays and statistics; each returns a new fitted estimator.

Layer 5 (estimator) of :mod:`dtdecide.tree` (``_estimator``); see the architecture page.
"""

from __future__ import annotations

import copy

from .._algorithms._edit import (
    _prune_node,
    _regrow,
    _set_decision,
    _split,
    _split_candidates,
    _training_arrays,
)

__all__ = ["EditMixin"]


class EditMixin:
    """Hand edits of a fitted tree (each returns a new fitted estimator)."""

    def set_decision(self, leaf, decision):
        """Override the decision of a leaf.

        The leaf keeps its cases and statistics; only its decision changes. The leaf
        table, the rules, the plots and the HTML view mark it as an override with the
        expected profit per case it gives up (the tree's own decision minus the chosen
        one); ``decide`` and the SQL score code use the chosen decision.

        Parameters
        ----------
        leaf : int
            Node id of a leaf (as returned by ``apply``).
        decision : str
            One of the decisions of the matrix. The tree's own decision removes the
            override.

        Returns
        -------
        estimator
            A new fitted estimator; this one is unchanged. Its ``edits_`` ends with
            ``{"op": "set_decision", "node": leaf, "decision": decision, "fingerprint":
            {...}}`` (the leaf's fingerprint: see :meth:`fit`'s ``edits``).

        Examples
        --------
        >>> import pandas as pd
        >>> from dtdecide import DecisionMatrix, ProfitTreeClassifier
        >>> X = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6, 7, 8]})
        >>> y = ["no", "no", "no", "no", "yes", "yes", "no", "yes"]
        >>> m = DecisionMatrix({"call": [10, -1], "skip": [0, 0]}, levels=["yes", "no"])
        >>> tree = ProfitTreeClassifier(decision_matrix=m, max_depth=2, min_samples_leaf=2,
        ...                             min_samples_split=4).fit(X, y)
        >>> edited = tree.set_decision(1, "call")
        >>> edited.decide(X).cases["D_target"].tolist()[:4]
        ['call', 'call', 'call', 'call']
        >>> edited.edits_  # the record, with the fingerprint of the leaf a replay checks
        [{'op': 'set_decision', 'node': 1, 'decision': 'call', 'fingerprint': {'path':
        [{'feature': 'x', 'threshold': 4.5, 'categories': None, 'missing': 'left',
        'side': 'left'}], 'n': 4}}]
        >>> tree.decide(X).cases["D_target"].tolist()[:4]
        ['skip', 'skip', 'skip', 'skip']
        """
        new = copy.deepcopy(self)
        new.edits_ = list(getattr(self, "edits_", []))
        new.decision_overrides_ = dict(getattr(self, "decision_overrides_", {}))
        new.edits_.append(_set_decision(new, leaf, decision))
        return new

    def split_candidates(self, node, X=None, y=None, costs=None, sample_weight=None, n=10, *,
                         by="criterion"):
        """The candidate splits of a node, best first, with what each would decide.

        For every input, the split the grower's own search finds at the node (the same
        histograms, bins, criterion, class weights and ``min_samples_leaf``, so on a
        greedy tree the input it split the node on shows its split; a tree grown with
        ``search="exact"`` chose its splits by training profit instead), and, with a decision
        matrix, the split of that input that adds the most training profit when each
        child takes its best decision. Each candidate is shown with its children's
        sizes, decisions and expected profits, and both gains. Pass a row to
        :meth:`split` to make it: ``tree.split(node, **row[["feature", "threshold",
        "categories", "missing"]])``.

        Parameters
        ----------
        node : int
            Node id (as returned by ``apply``); a leaf, or an internal node to see the
            alternatives to its split.
        X : DataFrame or array-like of shape (n_samples, n_features)
            The training inputs, as given to ``fit`` (the tree keeps no data; the rows
            are checked against the fitted node counts).
        y : array-like of shape (n_samples,)
            The training target, as given to ``fit``.
        costs : DataFrame, dict of arrays or ndarray, default=None
            The training costs, as given to ``fit``.
        sample_weight : array-like of shape (n_samples,), default=None
            The training frequencies, as given to ``fit``.
        n : int or None, default=10
            Number of rows returned; None returns every candidate.
        by : {"criterion", "profit"}, default="criterion"
            Order: by the growing criterion's gain (as the grower chooses) or by the
            training profit gain.

        Returns
        -------
        DataFrame
            One row per candidate, best first, with a RangeIndex: ``feature``,
            ``threshold`` (cases with ``x <= threshold`` go left; NaN for a categorical
            split), ``categories`` (the labels that go left; None for a numeric split),
            ``missing`` (``"left"`` or ``"right"``: where missing values and unseen
            labels go), ``n_left``/``n_right`` (training rows), ``weight_left``/
            ``weight_right`` (their frequency sums), with a decision matrix
            ``decision_left``/``decision_right`` and ``EP_left``/``EP_right``
            (``EL_`` for a loss matrix: the expected profit per case of each child's
            decision, as in the leaf table), then ``criterion_gain`` (the impurity
            decrease ``W(node) - W(left) - W(right)`` of the growing criterion, in its
            class-weighted sums) and ``profit_gain`` (the training profit the split
            adds: the children's total profit under their decisions minus the node's,
            as the leaf table's ``total_profit`` adds up; for a loss matrix, the loss
            it saves). Under ``decision_rule="case"`` the decisions are those at the
            children's average costs and ``profit_gain`` counts every case under its
            own decision.

        Examples
        --------
        >>> import pandas as pd
        >>> from dtdecide import DecisionMatrix, ProfitTreeClassifier
        >>> X = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6, 7, 8],
        ...                   "z": ["a", "b", "a", "b", "a", "b", "a", "b"]})
        >>> y = ["no", "no", "no", "no", "yes", "yes", "no", "yes"]
        >>> m = DecisionMatrix({"call": [10, -1], "skip": [0, 0]}, levels=["yes", "no"])
        >>> tree = ProfitTreeClassifier(decision_matrix=m, max_depth=1, min_samples_leaf=2,
        ...                             min_samples_split=4).fit(X, y)
        >>> c = tree.split_candidates(0, X, y)
        >>> c[["feature", "threshold", "categories", "decision_left", "decision_right"]]
          feature  threshold categories decision_left decision_right
        0       x        4.5       None          skip           call
        1       z        NaN        [b]          call           call
        >>> c[["EP_left", "EP_right", "criterion_gain", "profit_gain"]].round(3)
           EP_left  EP_right  criterion_gain  profit_gain
        0      0.0      7.25            2.25          4.0
        1      4.5      1.75            0.25          0.0
        """
        data = _training_arrays(self, X, y, costs, sample_weight, what="split_candidates")
        return _split_candidates(self, node, data, n, by)

    def split(self, node, feature, threshold=None, categories=None, missing=None, *,
              X=None, y=None, costs=None, sample_weight=None):
        """Split a leaf on a given input: force the split a manager asked for.

        The two new leaves get the next free node ids (left first) and the decisions
        that maximise their expected profit, computed from the training rows that reach
        them; the tree keeps no data, so pass the rows ``fit`` was given (they are
        checked against the fitted node counts).

        Parameters
        ----------
        node : int
            Node id of a leaf.
        feature : str or int
            Input name (or index) to split on.
        threshold : float, default=None
            Numeric input: cases with ``x <= threshold`` go left. It must lie within the
            values of the input at the node, so that both sides get cases.
        categories : list, default=None
            Categorical input: the labels (seen in training) that go left; the others
            go right.
        missing : {"left", "right"} or None, default=None
            Where missing values (and unseen categories) go; None sends them to the
            side with more training weight.
        X : DataFrame or array-like of shape (n_samples, n_features)
            The training inputs, as given to ``fit``.
        y : array-like of shape (n_samples,)
            The training target, as given to ``fit``.
        costs : DataFrame, dict of arrays or ndarray, default=None
            The training costs, as given to ``fit``.
        sample_weight : array-like of shape (n_samples,), default=None
            The training frequencies, as given to ``fit``.

        Returns
        -------
        estimator
            A new fitted estimator; this one is unchanged. Its ``edits_`` ends with
            ``{"op": "split", "node": ..., "feature": ..., "threshold": ...,
            "categories": ..., "missing": ..., "fingerprint": {...}}`` (the leaf's
            fingerprint: see :meth:`fit`'s ``edits``).

        Examples
        --------
        >>> import pandas as pd
        >>> from dtdecide import DecisionMatrix, ProfitTreeClassifier
        >>> X = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6, 7, 8]})
        >>> y = ["no", "no", "no", "no", "yes", "yes", "no", "yes"]
        >>> m = DecisionMatrix({"call": [10, -1], "skip": [0, 0]}, levels=["yes", "no"])
        >>> tree = ProfitTreeClassifier(decision_matrix=m, max_depth=1, min_samples_leaf=2,
        ...                             min_samples_split=4).fit(X, y)
        >>> tree.apply(X).tolist()
        [1, 1, 1, 1, 2, 2, 2, 2]
        >>> split = tree.split(1, "x", threshold=2, X=X, y=y)
        >>> split.apply(X).tolist(), split.edits_[0]["threshold"]
        ([3, 3, 4, 4, 2, 2, 2, 2], 2.0)
        """
        data = _training_arrays(self, X, y, costs, sample_weight)
        new = copy.deepcopy(self)
        new.edits_ = list(getattr(self, "edits_", []))
        new.decision_overrides_ = dict(getattr(self, "decision_overrides_", {}))
        new.edits_.append(_split(new, node, feature, threshold, categories, missing, data=data))
        return new

    def regrow(self, node, X=None, y=None, costs=None, sample_weight=None, **params):
        """Regrow the subtree below a node with other settings.

        Everything below ``node`` is dropped and grown again from the node's training
        rows by the tree's own grower (the same bins, class weights and decision
        matrix), with ``params`` in place of the tree's settings: for instance a deeper
        branch where the data allow it, larger leaves where a segment is too fine, or
        another criterion. The node keeps its id; the new nodes get the next free ids.
        A leaf can be regrown too (the tree grows below it).

        Parameters
        ----------
        node : int
            Node id (as returned by ``apply``).
        X : DataFrame or array-like of shape (n_samples, n_features)
            The training inputs, as given to ``fit`` (checked against the fitted node
            counts; the tree keeps no data).
        y : array-like of shape (n_samples,)
            The training target, as given to ``fit``.
        costs : DataFrame, dict of arrays or ndarray, default=None
            The training costs, as given to ``fit``.
        sample_weight : array-like of shape (n_samples,), default=None
            The training frequencies, as given to ``fit``.
        **params : dict
            Settings for the new subtree, among ``criterion``, ``max_depth``,
            ``min_samples_leaf``, ``min_samples_split``, ``min_impurity_decrease``,
            ``max_leaf_nodes`` and ``max_bins``; the others keep the tree's values.
            ``max_depth`` counts from the root, as the estimator's does (it must exceed
            the node's depth); ``min_impurity_decrease`` is relative to the whole
            training sample, as at fit. The subtree is grown greedily and not pruned by
            ``ccp_alpha``; its nodes' ``impurity`` is under the criterion it was grown
            with (the node's included).

        Returns
        -------
        estimator
            A new fitted estimator; this one is unchanged. Its ``edits_`` ends with
            ``{"op": "regrow", "node": node, "params": params, "fingerprint": {...}}``
            (the node's fingerprint: see :meth:`fit`'s ``edits``).

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> from dtdecide import DecisionMatrix, ProfitTreeClassifier
        >>> X = pd.DataFrame({"x": np.arange(1.0, 13.0)})
        >>> y = ["no"] * 4 + ["yes", "no"] * 2 + ["yes"] * 4
        >>> m = DecisionMatrix({"call": [10, -1], "skip": [0, 0]}, levels=["yes", "no"])
        >>> tree = ProfitTreeClassifier(decision_matrix=m, max_depth=1, min_samples_leaf=2,
        ...                             min_samples_split=4).fit(X, y)
        >>> tree.get_n_leaves()
        2
        >>> tree.apply(X).tolist()
        [1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2]
        >>> deeper = tree.regrow(2, X, y, max_depth=3)
        >>> deeper.apply(X).tolist()
        [1, 1, 1, 1, 5, 5, 6, 6, 4, 4, 4, 4]
        >>> deeper.edits_
        [{'op': 'regrow', 'node': 2, 'params': {'max_depth': 3}, 'fingerprint': {...}}]
        """
        data = _training_arrays(self, X, y, costs, sample_weight, what="regrow")
        new = copy.deepcopy(self)
        new.edits_ = list(getattr(self, "edits_", []))
        new.decision_overrides_ = dict(getattr(self, "decision_overrides_", {}))
        new.edits_.append(_regrow(new, node, params, data=data))
        return new

    def prune_node(self, node):
        """Make an internal node a leaf (drop everything below it).

        The node takes the decision that maximises its expected profit from its own
        training statistics. Node ids are renumbered afterwards (children still have
        larger ids than their parents); later edits use the new ids.

        Parameters
        ----------
        node : int
            Node id of an internal node.

        Returns
        -------
        estimator
            A new fitted estimator; this one is unchanged. Its ``edits_`` ends with
            ``{"op": "prune_node", "node": node, "fingerprint": {...}}`` (the node's
            fingerprint: see :meth:`fit`'s ``edits``).

        Examples
        --------
        >>> import pandas as pd
        >>> from dtdecide import DecisionMatrix, ProfitTreeClassifier
        >>> X = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6, 7, 8]})
        >>> y = ["no", "no", "no", "no", "yes", "yes", "no", "yes"]
        >>> m = DecisionMatrix({"call": [10, -1], "skip": [0, 0]}, levels=["yes", "no"])
        >>> tree = ProfitTreeClassifier(decision_matrix=m, max_depth=2, min_samples_leaf=2,
        ...                             min_samples_split=4).fit(X, y)
        >>> tree.get_n_leaves(), tree.prune_node(2).get_n_leaves()
        (3, 2)
        >>> tree.prune_node(2).apply(X).tolist()
        [1, 1, 1, 1, 2, 2, 2, 2]
        """
        new = copy.deepcopy(self)
        new.edits_ = list(getattr(self, "edits_", []))
        new.decision_overrides_ = dict(getattr(self, "decision_overrides_", {}))
        new.edits_.append(_prune_node(new, node))
        return new

