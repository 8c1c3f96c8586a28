"""A profit tree that learns a policy from a logged campaign: :class:`PolicyTree`."""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, check_random_state

from ..decision import DecisionMatrix
from ..decision._capacity import check_method
from ..decision._validation import (
    check_same_index,
    float_array,
    reference_index,
    refuse_bool_numbers,
    refuse_overflowing_sums,
    refuse_unicode_forms,
)
from ..tree import ProfitTreeClassifier
from ._rewards import (
    check_action,
    check_costs,
    check_decisions,
    decision_column_labels,
    n_rows,
    policy_rewards,
    take_rows,
)
from ._search import bin_inputs, exact_policy_tree

__all__ = ["PolicyTree"]

LEVEL = "reward"  # the one level of the consequences: the reward of each decision
TARGET = "policy"  # the target name of the decision tables (D_policy, EP_policy)


def reward_matrix(decisions):
    """The case-specific profit matrix a policy tree decides with."""
    return DecisionMatrix.case_specific(levels=[LEVEL], decisions=list(decisions),
                                        kind="profit")


def _numeric_matrix(X):
    """X as a float array when every input is numeric and none is missing, else None.

    A bool column is not numeric here: the trees take it as categorical (a threshold
    on it was refused when the search's split was written into the tree)."""
    if isinstance(X, pd.DataFrame):
        if not all(pd.api.types.is_numeric_dtype(t) and not pd.api.types.is_bool_dtype(t)
                   and not isinstance(t, pd.CategoricalDtype) for t in X.dtypes):
            return None
        arr = X.to_numpy(dtype=float, na_value=np.nan)
    else:
        try:
            arr = np.asarray(X, dtype=float)
        except (TypeError, ValueError):
            return None
    if arr.ndim != 2 or not np.isfinite(arr).all():
        return None
    return arr


def _midpoint(x, edge):
    """Threshold halfway between ``edge`` and the next larger value of ``x`` (the same
    partition of these cases; new values in the gap split as the middle says)."""
    above = x[x > edge]
    if not above.size:
        return float(edge)
    mid = (float(edge) + float(above.min())) / 2
    return mid if edge < mid < above.min() else float(edge)


def _split_records(est):
    """The splits of a fitted profit tree, parents first: (node, feature, threshold,
    categories, missing) with node ids as a replay numbers them."""
    t = est.tree_
    names = [str(f) for f in est.feature_names_in_]
    out = []
    queue = [(0, 0)]  # (node of est.tree_, id in the replayed tree)
    next_id = 1
    while queue:
        node, new = queue.pop(0)
        left, right = int(t.children_left[node]), int(t.children_right[node])
        if left < 0:
            continue
        j = int(t.feature[node])
        if t.is_categorical[node]:
            labels = list(est.categories_[j])
            codes = np.flatnonzero(np.asarray(t.cat_left[node])[: len(labels)])
            rec = dict(threshold=None, categories=[labels[c] for c in codes])
        else:
            rec = dict(threshold=float(t.threshold[node]), categories=None)
        rec.update(node=new, feature=names[j],
                   missing="left" if t.missing_left[node] else "right")
        out.append((rec, next_id, next_id + 1))
        queue.append((left, next_id))
        queue.append((right, next_id + 1))
        next_id += 2
    return out


class PolicyTree(BaseEstimator):
    """A policy tree learnt from a logged campaign: one decision per leaf.

    ``fit`` estimates, for every logged case, the reward of every decision (doubly
    robust by default, with cross-fitted outcome and propensity models, see
    :func:`~dtdecide.policy.policy_rewards`), subtracts each decision's cost for that
    case, and grows a :class:`~dtdecide.ProfitTreeClassifier` on these net rewards as
    case-specific consequences: each leaf takes the decision with the largest total net
    reward of its cases. The fitted profit tree (``profit_tree_``) is an ordinary one:
    leaf tables, rules, SQL score code, pruning studies and plots work on it.

    Parameters
    ----------
    decisions : sequence of str, default=None
        The decisions in tie-break order; default: the distinct logged actions, sorted.
    method : {"dr", "ipw", "dm"}, default="dr"
        Rewards: doubly robust, inverse propensity weighting or direct method.
    outcome_model, propensity_model : scikit-learn estimators, default=None
        Nuisance models (see :func:`~dtdecide.policy.policy_rewards`).
    cv : int, default=5
        Cross-fitting folds of the nuisance models.
    clip : float, default=0.01
        Propensities are clipped to ``[clip, 1 - clip]`` (``n_clipped_`` counts them).
    search : {"exact", "greedy", "hybrid"}, default="exact"
        ``"exact"``: the tree of depth <= ``max_depth`` with the largest total net
        reward. With numeric inputs without missing values and ``max_depth <= 2`` the
        policy search of this module runs (two-dimensional histograms of every pair
        of inputs; it honours ``min_action_support``); otherwise the profit tree's
        own exact search (depth up to 3). ``"greedy"``: the profit tree's greedy
        grower on the net rewards (``criterion="profit"``), any depth. ``"hybrid"``
        (numeric inputs without missing values): exact depth-2 trees stacked, each
        leaf at the bottom of a block growing the best depth-2 tree of its own cases
        until ``max_depth`` -- a look-ahead of two levels instead of one, honouring
        ``min_action_support`` everywhere.
    max_depth : int, default=2
        Depth of the tree.
    min_samples_leaf : int, default=1
        At least this many cases in every leaf, the one size limit of every search;
        with fewer than twice this many cases the tree is one leaf (of every case, even
        fewer than this).
    min_action_support : int, default=0
        At least this many cases *of every logged decision* in every leaf, so that each
        leaf's rewards rest on cases that got each decision. The exact depth-<=2 search
        (and ``"hybrid"``) enforces it in the search; the greedy grower (and the profit
        tree's exact search) by pruning back every split that leaves a leaf short.
    max_bins : int, default=255
        Bins per input of the search.
    honest : bool, default=False
        Grow the tree on a random part of the cases (``1 - honest_fraction``) and set
        its leaves' decisions and figures from the other part: the reported leaf
        profits are then not the ones the search maximised. Splits that leave a side
        of the estimation part empty are dropped.
    honest_fraction : float, default=0.5
        Share of the cases kept for the leaf estimates when ``honest``.
    random_state : int, RandomState instance or None, default=None
        Cross-fitting folds, nuisance models, binning sample and the honest split.
    n_jobs : int or None, default=None
        Threads of the tree search (None: 1; -1: every core). The tree found does not
        depend on it. The nuisance models use their own settings.

    Attributes
    ----------
    decisions_ : tuple of str
    rewards_ : DataFrame of shape (n_samples, n_decisions)
        The estimated reward of every decision for every training case (before costs).
    net_rewards_ : DataFrame of shape (n_samples, n_decisions)
        ``rewards_`` minus the costs: what the tree maximised.
    nuisance_ : Rewards
        The cross-fitted nuisances (outcome predictions, propensities, folds).
    n_clipped_ : int
        Training cases whose propensity was clipped.
    profit_tree_ : ProfitTreeClassifier
        The fitted tree (target ``"policy"``, one level ``"reward"``).
    leaf_values_ : ndarray of shape (n_nodes, n_decisions)
        Average net reward of every decision over the (estimating) cases of each leaf
        (NaN for internal nodes): what :meth:`decide` ranks under a capacity.
    search_profit_ : float
        Total net reward of the training (growing) cases under the tree's decisions.
    feature_names_in_, n_features_in_
        As in scikit-learn.

    Examples
    --------
    >>> from sklearn.linear_model import LinearRegression, LogisticRegression
    >>> from dtdecide.policy import PolicyTree, make_logged_campaign
    >>> data = make_logged_campaign(2000, effect="step", random_state=0)
    >>> policy = PolicyTree(decisions=data.decisions, outcome_model=LinearRegression(),
    ...                     propensity_model=LogisticRegression(), max_depth=2,
    ...                     random_state=0).fit(data.X, data.action, data.outcome)
    >>> policy.profit_tree_.get_n_leaves()
    4
    >>> decided = policy.predict(data.X)
    >>> round(float((decided == data.best).mean()), 2)
    0.92
    """

    _parameter_constraints: dict = {
        "decisions": ["array-like", None],
        "method": [StrOptions({"dr", "ipw", "dm"})],
        "outcome_model": [HasMethods(["fit", "predict"]), None],
        "propensity_model": [HasMethods(["fit", "predict_proba"]), None],
        "cv": [Interval(numbers.Integral, 2, None, closed="left")],
        "clip": [Interval(numbers.Real, 0.0, 0.5, closed="left")],
        "search": [StrOptions({"exact", "greedy", "hybrid"})],
        "max_depth": [Interval(numbers.Integral, 1, None, closed="left")],
        "min_samples_leaf": [Interval(numbers.Integral, 1, None, closed="left")],
        "min_action_support": [Interval(numbers.Integral, 0, None, closed="left")],
        "max_bins": [Interval(numbers.Integral, 2, 255, closed="both")],
        "honest": ["boolean"],
        "honest_fraction": [Interval(numbers.Real, 0.0, 1.0, closed="neither")],
        "random_state": ["random_state"],
        "n_jobs": [numbers.Integral, None],
    }

    def __init__(self, *, decisions=None, method="dr", outcome_model=None,
                 propensity_model=None, cv=5, clip=0.01, search="exact", max_depth=2,
                 min_samples_leaf=1, min_action_support=0, max_bins=255, honest=False,
                 honest_fraction=0.5, random_state=None, n_jobs=None):
        self.decisions = decisions
        self.method = method
        self.outcome_model = outcome_model
        self.propensity_model = propensity_model
        self.cv = cv
        self.clip = clip
        self.search = search
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.min_action_support = min_action_support
        self.max_bins = max_bins
        self.honest = honest
        self.honest_fraction = honest_fraction
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _validate_params(self):
        super()._validate_params()
        refuse_bool_numbers(self)  # max_depth=True is no depth

    # ------------------------------------------------------------------ fit
    def fit(self, X, action, outcome, *, costs=None, propensity=None, outcome_value=None,
            rewards=None):
        """Estimate the rewards and grow the policy tree.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            The inputs (the columns seen in ``fit``).
        action : array-like of shape (n_samples,)
            The logged decision of each case.
        outcome : array-like of shape (n_samples,)
            The observed outcome (money), or a 0/1 response with ``outcome_value``.
        costs : DataFrame, dict or ndarray, default=None
            Per-case cost of every decision: a DataFrame / dict keyed by decision
            (scalars or one value per case; absent decisions cost 0) or an
            (n_samples, n_decisions) array.
        propensity : array-like, default=None
            Known probability of the logged decision (or of every decision).
        outcome_value : float or array-like, default=None
            Value of a response (binary ``outcome``).
        rewards : DataFrame or array-like of shape (n_samples, n_decisions), default=None
            Rewards computed elsewhere (for instance by
            :func:`~dtdecide.policy.policy_rewards` once for several trees); the
            nuisance models are then not fitted. ``outcome`` may then be None.

        Returns
        -------
        self
            The fitted policy tree.
        """
        self._validate_params()
        n = n_rows(X)
        if n == 0:
            raise ValueError("X has no cases (0 rows)")
        index = reference_index(X)
        if rewards is not None:
            given = [k for k, v in (("propensity", propensity),
                                    ("outcome_value", outcome_value)) if v is not None]
            if given:
                raise ValueError(
                    f"{given[0]} is used to compute the rewards; with rewards= given it "
                    "would be ignored: leave it out, or leave out rewards=")
        rng = check_random_state(self.random_state)
        seed_rewards = rng.randint(np.iinfo(np.int32).max)
        seed_tree = rng.randint(np.iinfo(np.int32).max)
        decisions, a_idx = check_decisions(check_action(action, n, index), self.decisions)
        if rewards is None:
            nuis = policy_rewards(
                X, action, outcome, decisions=decisions, method=self.method,
                propensity=propensity, outcome_value=outcome_value,
                outcome_model=self.outcome_model, propensity_model=self.propensity_model,
                cv=self.cv, clip=self.clip, random_state=seed_rewards)
            G = nuis.rewards.to_numpy()
            self.nuisance_ = nuis
            self.n_clipped_ = nuis.n_clipped
        else:
            G = _as_reward_array(rewards, decisions, n, index)
            self.nuisance_ = None
            self.n_clipped_ = 0
        C = check_costs(costs, decisions, n, index)
        Q = G - C
        self.decisions_ = decisions
        self.rewards_ = pd.DataFrame(G, columns=list(decisions), index=index)
        self.net_rewards_ = pd.DataFrame(Q, columns=list(decisions), index=index)

        grow_rows = est_rows = np.arange(n)
        if self.honest:
            perm = np.random.default_rng(seed_tree).permutation(n)
            n_est = int(round(self.honest_fraction * n))
            if n_est < 1 or n_est >= n:
                raise ValueError(
                    f"honest_fraction={self.honest_fraction} leaves no case to grow on or to "
                    f"estimate with ({n} cases)")
            est_rows, grow_rows = np.sort(perm[:n_est]), np.sort(perm[n_est:])
        self._check_support(a_idx[grow_rows], decisions)
        tree = self._grow(take_rows(X, grow_rows), Q[grow_rows], a_idx[grow_rows],
                          len(decisions), seed_tree)
        if self.honest:
            tree = self._replay(tree, take_rows(X, est_rows), Q[est_rows])
        self.profit_tree_ = tree
        self.feature_names_in_ = tree.feature_names_in_
        self.n_features_in_ = tree.n_features_in_
        leaves_est = tree.apply(take_rows(X, est_rows))
        n_nodes = tree.tree_.n_nodes
        sums = np.zeros((n_nodes, len(decisions)))
        np.add.at(sums, leaves_est, Q[est_rows])
        cnt = np.bincount(leaves_est, minlength=n_nodes)
        with np.errstate(invalid="ignore", divide="ignore"):
            self.leaf_values_ = sums / cnt[:, None]
        leaves = tree.apply(take_rows(X, grow_rows))
        d_leaf = self._leaf_decision_index(tree)
        self.search_profit_ = float(Q[grow_rows][np.arange(grow_rows.shape[0]),
                                                 d_leaf[leaves]].sum())
        return self

    # ------------------------------------------------------------------ growing
    def _check_support(self, a_idx, decisions):
        """Refuse, whatever the search, a ``min_action_support`` that no leaf can meet: a
        logged decision with fewer cases than that among the cases the tree grows on."""
        mas = self.min_action_support
        if mas == 0:
            return
        counts = np.bincount(a_idx, minlength=len(decisions))
        short = np.flatnonzero(counts < mas)
        if short.size:
            d = int(short[0])
            part = " the tree grows on (honest=True keeps the others)" if self.honest else ""
            raise ValueError(
                f"min_action_support={mas}: the logged decision {decisions[d]!r} has "
                f"{counts[d]} of the {a_idx.shape[0]} cases{part}, so no leaf, not even one "
                "holding every case, can meet it; lower min_action_support, or leave a "
                "decision that was seldom or never logged out of decisions")

    def _tree(self, decisions, n, seed, **params):
        # min_samples_split=2: min_samples_leaf is the one size limit of a policy tree,
        # whatever the search (the profit tree's default of 10 stopped the greedy and
        # the profit tree's exact searches on nodes the policy search splits)
        base = dict(decision_matrix=reward_matrix(decisions), max_depth=self.max_depth,
                    min_samples_leaf=self.min_samples_leaf, min_samples_split=2,
                    max_bins=self.max_bins, random_state=seed, n_jobs=self.n_jobs)
        base.update(params)
        return ProfitTreeClassifier(**base)

    def _y(self, n, X):
        return pd.Series(np.full(n, LEVEL, dtype=object), name=TARGET,
                         index=reference_index(X))

    def _grow(self, X, Q, a_idx, D, seed):
        n = Q.shape[0]
        y = self._y(n, X)
        Q3 = Q[:, None, :]
        own = self.search == "hybrid" or (self.search == "exact" and self.max_depth <= 2)
        arr = _numeric_matrix(X) if own else None
        if self.search == "hybrid" and arr is None:
            raise ValueError(
                'search="hybrid" needs numeric inputs without missing values (the exact '
                'depth-2 blocks run on them; bool and category columns are categorical); '
                'use search="greedy" or "exact" otherwise')
        if arr is not None:
            Xb, edges = bin_inputs(arr, self.max_bins, random_state=seed)
            nested = self._search_blocks(Xb, edges, Q, a_idx, D, np.arange(n),
                                         self.max_depth)
            tree = self._root_only(X, y, Q3, seed)
            queue = [(nested, 0)]
            next_id = 1
            while queue:
                node, at = queue.pop(0)
                if node is None:
                    continue
                f, k, left, right = node
                tree = tree.split(at, int(f), threshold=_midpoint(arr[:, f], edges[f][k]),
                                  X=X, y=y, costs=Q3)
                queue += [(left, next_id), (right, next_id + 1)]
                next_id += 2
            return tree
        if self.search == "exact":
            tree = self._tree(self.decisions_, n, seed, search="exact").fit(X, y, costs=Q3)
        else:
            tree = self._tree(self.decisions_, n, seed, criterion="profit").fit(X, y, costs=Q3)
        if self.min_action_support > 0:
            tree = self._enforce_support(tree, X, a_idx, D)
        return tree

    def _search_blocks(self, Xb, edges, Q, a_idx, D, rows, depth):
        """Exact trees of depth <= 2 on ``rows``; with more depth left (``"hybrid"``),
        the same again on each leaf at the bottom of the block."""
        _, nested = exact_policy_tree(
            Xb[rows], edges, Q[rows], a_idx[rows], n_actions=D, max_depth=min(depth, 2),
            min_samples_leaf=self.min_samples_leaf,
            min_action_support=self.min_action_support, n_threads=self._threads())
        if depth <= 2 or nested is None:
            return nested

        def deeper(node, node_rows, level):
            if node is None:
                return (self._search_blocks(Xb, edges, Q, a_idx, D, node_rows, depth - 2)
                        if level == 2 else None)
            f, k, left, right = node
            go = Xb[node_rows, f] <= k
            return (f, k, deeper(left, node_rows[go], level + 1),
                    deeper(right, node_rows[~go], level + 1))

        return deeper(nested, rows, 0)

    def _threads(self):
        if self.n_jobs is None:
            return 1
        if self.n_jobs == 0:
            raise ValueError("n_jobs must be None or a non-zero integer (-1: every core); "
                             "got 0")
        from joblib import effective_n_jobs

        return max(1, int(effective_n_jobs(self.n_jobs)))

    def _root_only(self, X, y, Q3, seed):
        n = Q3.shape[0]
        tree = self._tree(self.decisions_, n, seed, max_depth=1,
                          min_samples_split=n + 1).fit(X, y, costs=Q3)
        # the structure comes from the splits replayed on it (its edits_)
        return tree.set_params(max_depth=self.max_depth, min_samples_split=2)

    def _enforce_support(self, tree, X, a_idx, D):
        """Prune back every split that leaves a leaf short of a logged decision."""
        while True:
            leaves = tree.apply(X)
            n_nodes = tree.tree_.n_nodes
            counts = np.bincount(leaves * D + a_idx, minlength=n_nodes * D).reshape(n_nodes, D)
            is_leaf = np.asarray(tree.tree_.children_left) < 0
            short = np.flatnonzero(is_leaf & (counts < self.min_action_support).any(axis=1))
            if not short.size:
                return tree
            # the root is never short (_check_support): a short leaf has a parent
            parents = sorted({int(tree.tree_.parent[s]) for s in short if s > 0})
            tree = tree.prune_node(parents[-1])

    def _replay(self, grown, X, Q):
        """The splits of ``grown`` replayed on other cases (honest estimates)."""
        y = self._y(Q.shape[0], X)
        Q3 = Q[:, None, :]
        tree = self._root_only(X, y, Q3, None)
        ids = {0: 0}  # replay id of the grown tree's node -> id in the new tree
        next_id = 1
        for rec, left, right in _split_records(grown):
            if rec["node"] not in ids:
                continue
            rec = dict(rec, node=ids[rec["node"]])
            try:
                tree = tree.split(X=X, y=y, costs=Q3, **rec)
            except ValueError:
                continue  # a side of the estimation part is empty: the node stays a leaf
            ids[left], ids[right] = next_id, next_id + 1
            next_id += 2
        return tree

    # ------------------------------------------------------------------ using it
    def _leaf_decision_index(self, tree):
        return np.asarray(tree.tree_.node_decision, dtype=np.intp)

    def predict(self, X):
        """The decision of every case (its leaf's).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            The inputs (the columns seen in ``fit``).

        Returns
        -------
        ndarray of str, shape (n_samples,)
            The decision of each case's leaf.
        """
        check_is_fitted(self, "profit_tree_")
        return np.asarray(self.profit_tree_.predict_decision(X), dtype=object)

    def apply(self, X):
        """Leaf id of every case.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            The inputs (the columns seen in ``fit``).

        Returns
        -------
        ndarray of shape (n_samples,)
            Node ids of ``profit_tree_.tree_`` (as the leaf table numbers the leaves).
        """
        check_is_fitted(self, "profit_tree_")
        return self.profit_tree_.apply(X)

    def decide(self, X, rewards=None, *, costs=None, capacity=None, budget=None,
               method="auto", time_limit=None):
        """Decisions and their expected net reward per case, as a decision table.

        With ``capacity`` or ``budget`` the leaves' decisions give way to the best
        assignment under the limits (:func:`~dtdecide.decision.allocate`) of the
        leaves' average net rewards (``leaf_values_``): with one limited decision,
        whole leaves are taken by gain per case over their best unlimited decision and
        the boundary leaf is filled in the order of the cases given.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            The inputs (the columns seen in ``fit``).
        rewards : DataFrame or array-like of shape (n_samples, n_decisions), default=None
            Rewards of these cases (for instance held-out doubly robust rewards from
            :func:`~dtdecide.policy.policy_rewards`): the table then also holds each
            case's realised net reward ``CP_policy`` and the best one ``BP_policy``.
            Refused with ``capacity`` or ``budget`` (evaluate those decisions with
            :func:`~dtdecide.policy.policy_value`).
        costs : DataFrame, dict or ndarray, default=None
            Per-case costs of the decisions, subtracted from ``rewards``; with a
            ``budget``, the spend of each decision per case (and nothing else).
        capacity : dict, default=None
            ``{decision: N}``: at most ``N`` of these cases get that decision.
        budget : dict, default=None
            ``{decision: B}``: the spend (``costs``) of the cases given that decision
            is at most ``B``.
        method : {"auto", "exact", "relaxation"}, default="auto"
            How a budget is solved (:func:`~dtdecide.decision.allocate`): the rounded
            linear relaxation with its proven bound, the optimum proven by a
            mixed-integer program, or the program only where few cases are near the
            relaxation's margin. Capacities alone are always solved exactly. Another
            method than ``"auto"`` without ``capacity`` or ``budget`` is refused.
        time_limit : float, default=None
            Seconds each mixed-integer program of a budget may take (see
            :func:`~dtdecide.decision.allocate`); refused without ``capacity`` or
            ``budget``.

        Returns
        -------
        DecisionResult
            ``cases`` with ``D_policy`` and ``EP_policy`` (the leaf's average net
            reward of the decision), and the summary; under limits also the
            ``shadow_price[<d>]`` and ``used[<d>]`` figures and ``allocation``.

        Examples
        --------
        >>> import numpy as np
        >>> from dtdecide.policy import PolicyTree
        >>> X = np.arange(8.0).reshape(-1, 1)
        >>> G = np.column_stack([np.zeros(8), [-1, -1, 1, 1, 2, 2, 3, 3]])
        >>> pt = PolicyTree(decisions=["skip", "call"], max_depth=2)
        >>> pt = pt.fit(X, ["skip", "call"] * 4, None, rewards=G)
        >>> pt.predict(X).tolist()
        ['skip', 'skip', 'call', 'call', 'call', 'call', 'call', 'call']
        >>> res = pt.decide(X, capacity={"call": 3})
        >>> res.cases["D_policy"].tolist()
        ['skip', 'skip', 'call', 'call', 'call', 'skip', 'skip', 'skip']
        >>> float(res.summary["shadow_price[call]"])
        2.0
        """
        check_is_fitted(self, "profit_tree_")
        if capacity is not None or budget is not None:
            return self._decide_limited(X, rewards, costs, capacity, budget, method,
                                        time_limit)
        check_method(method, time_limit, limited=False)
        if rewards is None:
            if costs is not None:
                raise ValueError("costs are subtracted from rewards: pass rewards= too")
            return self.profit_tree_.decide(X)
        n = n_rows(X)
        G = _as_reward_array(rewards, self.decisions_, n, reference_index(X))
        Q = G - check_costs(costs, self.decisions_, n, reference_index(X))
        return self.profit_tree_.decide(X, self._y(n, X), costs=Q[:, None, :])


    def capacity_plan(self, X, capacity):
        """Leaf priorities for one limited decision, as constants for scoring code.

        Under the leaf rule a capacity of ``N`` cases for one decision is met by taking
        whole leaves by their gain per case (the leaf's average net reward of the
        limited decision minus that of its best unlimited one), best first, and
        filling the boundary leaf with its first cases; this is the plan
        :meth:`decide` follows for the cases ``X``. The table gives every leaf its
        priority and quota, and ``attrs["sql"]`` a ``CASE`` expression of the priority
        on the ``_LEAF_`` column of :func:`~dtdecide.to_sql`'s output: score the
        table, order by the priority, and give the limited decision to the first
        ``N`` rows with a positive gain.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            The cases the capacity is shared among.
        capacity : dict
            ``{decision: N}`` for one decision.

        Returns
        -------
        DataFrame
            One row per leaf, by priority: ``leaf``, ``priority`` (1 = first),
            ``n`` (cases of ``X`` in it), ``gain`` (per case), ``taken`` (cases that
            get the limited decision), ``decision`` (the limited decision where all
            are taken, the best unlimited one where none are, ``"boundary"``
            otherwise), ``otherwise`` (the best unlimited decision: what the cases of
            the leaf that are not taken get). ``attrs``: ``decision``, ``capacity``, ``gain_threshold`` (the
            gain of the last leaf with a taken case: leaves with a larger gain are
            taken whole), ``shadow_price`` and ``sql``.

        Examples
        --------
        >>> import numpy as np
        >>> from dtdecide.policy import PolicyTree
        >>> X = np.arange(8.0).reshape(-1, 1)
        >>> G = np.column_stack([np.zeros(8), [-1, -1, 1, 1, 2, 2, 3, 3]])
        >>> pt = PolicyTree(decisions=["skip", "call"], max_depth=2)
        >>> pt = pt.fit(X, ["skip", "call"] * 4, None, rewards=G)
        >>> plan = pt.capacity_plan(X, {"call": 3})
        >>> plan[["leaf", "priority", "n", "gain", "taken", "decision"]]
           leaf  priority  n  gain  taken  decision
        0     4         1  6   2.0      3  boundary
        1     1         2  1  -1.0      0      skip
        2     3         3  1  -1.0      0      skip
        >>> print(plan.attrs["sql"])
        CASE "_LEAF_" WHEN 4 THEN 1 WHEN 1 THEN 2 WHEN 3 THEN 3 END AS "_PRIORITY_"
        """
        check_is_fitted(self, "profit_tree_")
        if not isinstance(capacity, dict) or len(capacity) != 1:
            raise ValueError("capacity must be a dict {decision: N} for one decision; got "
                             f"{capacity!r}")
        if "boundary" in self.decisions_:
            raise ValueError(
                "capacity_plan marks a leaf whose cases are split 'boundary' in its decision "
                "column, so a decision named 'boundary' would be read as that mark: rename "
                "the decision")
        res = self.decide(X, capacity=capacity)
        ((name, N),) = capacity.items()
        d = self.decisions_.index(str(name))
        leaves = self.apply(X)
        V = self.leaf_values_
        free = [k for k in range(len(self.decisions_)) if k != d]
        present = np.unique(leaves)
        gain = V[present, d] - V[present][:, free].max(axis=1)
        alt = np.asarray(free)[np.argmax(V[present][:, free], axis=1)]
        order = np.argsort(-gain, kind="stable")
        chosen = res.cases["D_policy"].to_numpy() == self.decisions_[d]
        n = np.bincount(leaves, minlength=V.shape[0])[present]
        taken = np.bincount(leaves[chosen], minlength=V.shape[0])[present]
        label = np.where(taken == n, self.decisions_[d], np.where(
            taken == 0, np.asarray(self.decisions_, dtype=object)[alt], "boundary"))
        plan = pd.DataFrame({
            "leaf": present[order], "priority": np.arange(1, present.size + 1),
            "n": n[order], "gain": gain[order], "taken": taken[order],
            "decision": label[order],
            "otherwise": np.asarray(self.decisions_, dtype=object)[alt][order]})
        took = plan["taken"] > 0
        plan.attrs.update(
            decision=self.decisions_[d], capacity=int(N),
            gain_threshold=float(plan.loc[took, "gain"].min()) if took.any() else np.inf,
            shadow_price=float(res.summary[f"shadow_price[{self.decisions_[d]}]"]),
            sql='CASE "_LEAF_" ' + " ".join(
                f"WHEN {int(leaf)} THEN {int(p)}"
                for leaf, p in zip(plan["leaf"], plan["priority"])) + ' END AS "_PRIORITY_"')
        return plan

    def pruning_study(self, X, rewards, *, costs=None, **params):
        """A pruning study of ``profit_tree_`` scored by held-out policy value.

        Every subtree of the profit-driven weakest-link sequence is scored by the
        average net reward of its decisions on held-out logged cases, that is their
        doubly robust policy value when ``rewards`` are doubly robust rewards of those
        cases (:func:`~dtdecide.policy.policy_rewards`); the study selects a subtree by
        it as for any profit tree, and its plot's y-axis is that value.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Inputs of the held-out cases.
        rewards : Rewards, DataFrame or array-like of shape (n_samples, n_decisions)
            Their rewards (for instance ``policy_rewards(X, action, outcome, ...)``).
        costs : DataFrame, dict or ndarray, default=None
            Their per-case costs of the decisions.
        **params : dict
            Parameters of :class:`~dtdecide.PruningStudy` (``selection``, ...).

        Returns
        -------
        PruningStudy
            Fitted; ``best_estimator_`` is the chosen profit tree.

        Examples
        --------
        >>> from dtdecide.policy import PolicyTree, make_logged_campaign, policy_rewards
        >>> train = make_logged_campaign(2000, random_state=0)
        >>> held = make_logged_campaign(2000, random_state=1)
        >>> pt = PolicyTree(decisions=train.decisions, search="greedy", max_depth=4,
        ...                 min_samples_leaf=20).fit(train.X, train.action, None,
        ...                                          rewards=train.expected)
        >>> study = pt.pruning_study(held.X, held.expected)
        >>> study.best_estimator_.get_n_leaves() <= pt.profit_tree_.get_n_leaves()
        True
        """
        from ..tree import PruningStudy

        check_is_fitted(self, "profit_tree_")
        n = n_rows(X)
        index = reference_index(X)
        G = _as_reward_array(rewards, self.decisions_, n, index)
        Q = G - check_costs(costs, self.decisions_, n, index)
        study = PruningStudy(self.profit_tree_, **params)
        return study.fit(X, self._y(n, X), costs_valid=Q[:, None, :])

    def _decide_limited(self, X, rewards, costs, capacity, budget, method, time_limit):
        from ..decision._capacity import allocate, with_allocation
        from ..decision._result import build_decision_result

        if rewards is not None:
            raise ValueError(
                "rewards: under a capacity or budget the decisions follow the leaves' "
                "expected net rewards; evaluate them on logged cases with "
                "policy_value(result.cases['D_policy'], ...)")
        n = n_rows(X)
        index = reference_index(X)
        leaves = self.apply(X)
        V = self.leaf_values_[leaves]
        spend = None
        if budget is not None:
            if costs is None:
                raise ValueError("budget needs costs= (the spend of each decision per case)")
            spend = check_costs(costs, self.decisions_, n, index)
            if (spend < 0).any():
                i, d = np.argwhere(spend < 0)[0]
                raise ValueError(
                    f"costs are the spend of the budget and must be non-negative; the cost "
                    f"of {self.decisions_[d]!r} in row {i} is {spend[i, d]}")
        elif costs is not None:
            raise ValueError("costs are used as the spend of a budget; give budget= too")
        alloc = allocate(V, capacity, budget=budget, spend=spend, decisions=self.decisions_,
                         method=method, time_limit=time_limit)
        dec = np.asarray(alloc.decision, dtype=np.intp)
        res = build_decision_result(
            reward_matrix(self.decisions_), dec, V[np.arange(n), dec],
            index=pd.RangeIndex(n) if index is None else index, target_name=TARGET)
        return with_allocation(res, alloc)


def _as_reward_array(rewards, decisions, n, index, name="rewards"):
    if hasattr(rewards, "rewards") and isinstance(rewards.rewards, pd.DataFrame):
        rewards = rewards.rewards
    if isinstance(rewards, pd.DataFrame):
        check_same_index(rewards, index, name)
        labels = decision_column_labels(rewards, name, "rewards")
        missing = [d for d in decisions if d not in labels]
        if missing:
            refuse_unicode_forms(sorted({*decisions, *labels}), f"{name} and the decisions")
            raise ValueError(f"{name}: no column for the decisions {missing!r}")
        rewards = rewards.set_axis(labels, axis=1)[list(decisions)]
    elif isinstance(rewards, dict):
        raise TypeError(f"{name} must be a DataFrame with one column per decision, an "
                        "array of shape (n_samples, n_decisions) or what policy_rewards "
                        "returns; got dict (pd.DataFrame(rewards) makes a frame of it)")
    G = float_array(rewards, name, "numbers (the reward of every decision for every case)")
    if G.shape != (n, len(decisions)):
        raise ValueError(f"{name} must have shape (n_samples, n_decisions) = ({n}, "
                         f"{len(decisions)}); got {G.shape}")
    if not np.isfinite(G).all():
        i, d = np.argwhere(~np.isfinite(G))[0]
        raise ValueError(f"{name} must be finite; the reward of {decisions[d]!r} in row {i} "
                         f"is {G[i, d]}")
    refuse_overflowing_sums(G, name)  # a leaf's sum would be inf or NaN
    return G
