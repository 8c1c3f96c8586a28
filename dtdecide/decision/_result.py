"""Decisions already made -> :class:`DecisionResult`.

The only place that turns per-case decisions and their figures (decision index,
expected, computed and best profit, investment, missing pattern, weights, target) into
the cases table and its summary. :func:`~dtdecide.decision.decide` and the trees'
``decide`` both end here; the leaf table sums a result per leaf with
:meth:`DecisionResult.summary_by`.
"""

import numpy as np
import pandas as pd

from .._dtypes import code_dtype
from ._kernels import _FLOAT, prior_adjustment_weights, roi
from ._validation import check_1d, check_same_index

__all__ = ["DecisionResult", "SummaryTotals", "build_decision_result", "constant_costs",
           "insert_confidence_columns", "realised_profits"]


class DecisionResult:
    """What :func:`decide` returns.

    Built by :func:`decide` and by the trees' ``decide`` methods; users read it.

    Parameters
    ----------
    cases : DataFrame
        Per-case results (stored as ``cases``).
    summary : Series
        Summary statistics (stored as ``summary``).
    matrix : DecisionMatrix
        The matrix used.
    decisions : tuple of str
        The possible decisions, in tie-break order.
    target_name : str
        Suffix of the output columns.

    Attributes
    ----------
    cases : DataFrame
        One row per case, aligned with the input index. Columns, suffixed with the
        target name: ``D_`` (decision, categorical), ``EP_`` or ``EL_`` (expected profit
        or loss), with a known target ``CP_``/``CL_`` (computed) and ``BP_``/``BL_``
        (best possible), with a revenue matrix ``IC_`` (investment cost) and, with a
        known target, ``ROI_``. Cases with a missing cost hold missing values.
    summary : Series
        Summary statistics (see :func:`decide`).
    matrix : DecisionMatrix
        The matrix used.
    decisions : tuple of str
        The possible decisions (the matrix decisions, plus the implicit do-nothing
        decision when a threshold was given).
    target_name : str
        Suffix of the output columns (``D_<target_name>`` and so on).

    Examples
    --------
    >>> from dtdecide import DecisionMatrix, decide
    >>> m = DecisionMatrix([[1, 0], [0, 1]], levels=["a", "b"], decisions=["A", "B"])
    >>> res = decide([[0.7, 0.3], [0.2, 0.8]], m, y=["a", "a"])
    >>> res.cases["D_target"].tolist()
    ['A', 'B']
    >>> round(float(res.summary["average_profit"]), 6)
    0.5
    """

    def __init__(self, cases, summary, matrix, decisions, target_name):
        self.cases = cases
        self.summary = summary
        self.matrix = matrix
        self.decisions = decisions
        self.target_name = target_name
        # per-case data behind the summary (set by build_decision_result), and the
        # references that keep edits of ``cases`` from writing into it
        self._case_data = None
        self._shared = None

    def decision_counts(self):
        """Number of cases taking each decision (missing decisions not counted).

        Returns
        -------
        Series
            Case count per decision, indexed by every possible decision in order.

        Examples
        --------
        >>> from dtdecide import DecisionMatrix, decide
        >>> m = DecisionMatrix([[1, 0], [0, 1]], levels=["a", "b"], decisions=["A", "B"])
        >>> decide([[0.7, 0.3], [0.6, 0.4]], m).decision_counts().to_dict()
        {'A': 2, 'B': 0}
        """
        name = f"D_{self.target_name}"
        data = self._case_data
        if data is None:  # built by hand: count the table's column
            col = self.cases[name]
            return col.value_counts(sort=False).reindex(list(self.decisions), fill_value=0)
        # the decisions made (codes; -1 missing), whatever edits the table had since
        codes = np.asarray(data["decision"])
        counts = np.bincount(codes[codes >= 0].astype(np.intp, copy=False),
                             minlength=len(self.decisions))
        return pd.Series(counts.astype(np.int64, copy=False),
                         index=pd.Index(list(self.decisions), name=name), name="count")

    def summary_by(self, groups):
        """The summary statistics of every group of cases (for instance the leaves).

        The same figures as ``summary`` and by the same rule (cases with a missing cost
        are left out of every cost and profit figure, the priors' adjustment weights
        are those of all cases), computed over the cases of each group, so that the
        ``total_*`` columns add up to the totals of ``summary``.
        ``misclassification_rate`` is only given overall.

        Parameters
        ----------
        groups : array-like of shape (n_cases,)
            Group label of every case. A pandas ``Categorical`` keeps its unused
            categories (as rows with zero cases).

        Returns
        -------
        DataFrame
            One row per group (sorted labels, or the categories in order), one column
            per summary statistic.

        Examples
        --------
        >>> from dtdecide import DecisionMatrix, decide
        >>> m = DecisionMatrix([[1, 0], [0, 1]], levels=["a", "b"], decisions=["A", "B"])
        >>> res = decide([[0.7, 0.3], [0.2, 0.8], [0.9, 0.1]], m, y=["a", "a", "b"])
        >>> res.summary_by(["x", "y", "x"])[["n_cases", "total_profit"]]
           n_cases  total_profit
        x      2.0           1.0
        y      1.0           0.0
        """
        if self._case_data is None:
            raise ValueError(
                "summary_by needs a DecisionResult made by decide or a tree's decide; "
                "this one was built by hand"
            )
        if isinstance(groups, (str, bytes)) or not np.iterable(groups):
            raise TypeError(f"groups must hold one label per case (array-like); got "
                            f"{groups!r}")
        # a pandas input indexed otherwise than the cases would be paired by position
        check_same_index(groups, self.cases.index, "groups", reference="result.cases")
        cat = pd.Categorical(groups if isinstance(groups, (pd.Series, pd.Categorical))
                             else check_1d(groups, "groups"))
        codes = np.asarray(cat.codes, dtype=np.intp)
        if codes.shape[0] != len(self.cases):
            raise ValueError(
                f"groups must have one label per case ({len(self.cases)}); got "
                f"{codes.shape[0]}"
            )
        if np.any(codes < 0):
            raise ValueError("groups must not contain missing labels")
        data = self._case_data
        sums = _Sums(data["sample_weight"], data["missing"], codes, len(cat.categories))
        stats = _summary(sums, data, self.matrix)
        return pd.DataFrame(stats, index=cat.categories)

    def __getstate__(self):
        # the references shared with ``cases`` are not data: a copy owns its arrays
        state = dict(self.__dict__)
        state["_shared"] = None
        return state

    def __repr__(self):
        return (
            f"DecisionResult(n_cases={len(self.cases)}, kind={self.matrix.kind!r}, "
            f"decisions={self.decisions!r})"
        )


class _Sums:
    """Frequency-weighted sums over the cases without a missing cost.

    Overall (``groups`` None: a float, the arithmetic :func:`decide` has always used:
    plain sums without weights, dot products with them) or per group (an array, by
    ``np.bincount``).
    """

    def __init__(self, F, missing, groups=None, n_groups=None):
        self.F = F
        self.missing = missing
        self.all_ok = not bool(missing.any())
        self.ok = None if self.all_ok else ~missing
        self.groups = groups
        self.n_groups = n_groups
        self.w_ok = None
        if groups is not None:
            self.w_ok = np.ones(missing.shape[0]) if F is None else F
            if not self.all_ok:
                self.w_ok = np.where(self.ok, self.w_ok, 0.0)
        elif F is not None:
            self.w_ok = F if self.all_ok else np.where(self.ok, F, 0.0)

    def count(self, mask=None):
        """Number of cases (where ``mask``), whatever their costs."""
        if self.groups is None:
            return self.missing.shape[0] if mask is None else int(np.count_nonzero(mask))
        g = self.groups if mask is None else self.groups[mask]
        return np.bincount(g, minlength=self.n_groups).astype(_FLOAT)

    def total(self, x, weights=None):
        """``sum_i w(i) x(i)`` over the cases without a missing cost (``x=None``: 1).

        ``weights`` replaces the frequencies (already zero where a cost is missing).
        A NaN on such a case makes the total NaN (np.where keeps it).
        """
        w = self.w_ok if weights is None else weights
        if self.groups is not None:
            if x is not None:
                x = x if self.all_ok else np.where(self.ok, x, 0.0)  # NaN * 0 is NaN
                w = x * w
            return np.bincount(self.groups, weights=w, minlength=self.n_groups) + 0.0
        if weights is None and self.F is None:
            if x is None:
                return float(self.count(self.ok) if not self.all_ok else self.count())
            return float(x.sum() if self.all_ok else x[self.ok].sum()) + 0.0
        if x is None:
            return float(w.sum())
        x = x if self.all_ok else np.where(self.ok, x, 0.0)
        return float(np.dot(w, x)) + 0.0

    def ratio(self, num, den):
        """``num / den``, NaN where ``den`` is not positive."""
        if self.groups is None:
            return num / den if den > 0 else np.nan
        out = np.full(self.n_groups, np.nan)
        np.divide(num, den, out=out, where=den > 0)
        return out


def _summary(sums, data, matrix):
    """Summary statistics (a dict) of the filled case columns (in the user's sign)."""
    sign = matrix.sign
    word = "loss" if sign < 0 else "profit"
    E = data["expected"]
    C, B, IC = data["computed"], data["best"], data["investment"]
    has_y = C is not None
    summary = {
        "n_cases": sums.count(),
        "n_missing": sums.count(sums.missing),
        "frequency": sums.total(None),
    }
    freq = summary["frequency"]
    tot = sums.total(E)
    summary[f"total_expected_{word}"] = tot
    summary[f"average_expected_{word}"] = sums.ratio(tot, freq)
    if has_y:
        tot = sums.total(C)
        summary[f"total_{word}"] = tot
        summary[f"average_{word}"] = sums.ratio(tot, freq)
        best = sums.total(B)
        summary[f"total_best_{word}"] = best
        summary[f"average_best_{word}"] = sums.ratio(best, freq)
    if IC is not None:
        invest = sums.total(IC)
        summary["total_investment"] = invest
        if has_y:
            r = roi(summary[f"total_{word}"], invest)
            summary["roi"] = float(r) if sums.groups is None else r
    t = data["target_codes"]
    if has_y and not matrix.is_interval and matrix.priors is not None:
        F, ok = sums.F, sums.ok
        t_ok = t if ok is None else t[ok]
        F_ok = None if F is None else (F if ok is None else F[ok])
        paw = prior_adjustment_weights(t_ok, F_ok, matrix.priors, matrix.n_levels)
        if paw is None:
            nan = np.nan if sums.groups is None else np.full(sums.n_groups, np.nan)
            adj_tot = adj_avg = nan
        else:
            aw_ok = paw if F_ok is None else F_ok * paw
            if sums.groups is None:
                adj_tot = float(np.dot(aw_ok, C if ok is None else C[ok])) + 0.0
                den = float(aw_ok.sum())
            else:
                aw = aw_ok
                if ok is not None:
                    aw = np.zeros(C.shape[0])
                    aw[ok] = aw_ok
                adj_tot = sums.total(C, weights=aw)
                den = sums.total(None, weights=aw)
            adj_avg = sums.ratio(adj_tot, den)
        summary[f"adjusted_total_{word}"] = adj_tot
        summary[f"adjusted_average_{word}"] = adj_avg
    wrong = data["misclassified"]
    if wrong is not None and sums.groups is None:
        F = sums.F
        wt = float(sums.missing.shape[0]) if F is None else float(F.sum())
        summary["misclassification_rate"] = float(wrong) / wt if wt > 0 else np.nan
    if data["threshold"] is not None:
        skipped = data["decision"] == matrix.n_decisions  # missing cases hold -1
        if sums.F is None and sums.groups is None:
            summary["do_nothing_frequency"] = float(np.count_nonzero(skipped))
        else:
            summary["do_nothing_frequency"] = sums.total(skipped)
    return summary


_ADDITIVE = ("n_cases", "n_missing", "frequency", "do_nothing_frequency")


def _additive(key):
    """Whether a summary statistic is a sum over the cases (else a ratio of sums)."""
    return key in _ADDITIVE or key.startswith(("total_", "n_unseen_", "n_missing_"))


class SummaryTotals:
    """The summary of a data set decided in chunks, as :func:`decide` gives it whole.

    :meth:`add` takes the :class:`DecisionResult` of every chunk (made by ``decide`` or a
    tree's ``decide``), :meth:`merge` the totals of other chunks (Dask partitions summed
    where they live); :meth:`summary` gives the statistics of all the chunks' cases
    together by the rules of the one-piece summary: counts and totals are added;
    averages and ROI are ratios of the totals; ``misclassification_rate`` is the total
    misclassified frequency over the total frequency; the priors' adjusted figures use
    the adjustment weights of every chunk's level frequencies (each level's frequency
    and total profit are kept, never the cases). Only the summation order differs from
    one ``decide`` on the whole data, so the figures agree to rounding.
    """

    def __init__(self):
        self._totals = {}
        self._matrix = None
        self._name = None
        self._wrong = 0.0
        self._weight_all = 0.0
        self._levels = None  # per level: frequency and total profit (priors given)

    def add(self, result):
        """Add the cases of one chunk's result."""
        data = result._case_data
        if data is None:
            raise ValueError("SummaryTotals needs results made by decide or a tree's decide")
        summary = result.summary
        if self._matrix is None:
            self._matrix, self._name = result.matrix, summary.name
        for key, value in summary.items():
            if _additive(key):
                self._totals[key] = self._totals.get(key, 0.0) + float(value)
            elif key not in self._totals:
                self._totals[key] = np.nan  # a ratio: computed in summary()
        F, missing = data["sample_weight"], data["missing"]
        if "misclassification_rate" in summary.index:
            self._wrong += float(data["misclassified"])
            self._weight_all += float(missing.shape[0] if F is None else F.sum())
        word = "loss" if result.matrix.sign < 0 else "profit"
        if f"adjusted_total_{word}" in summary.index:
            ok = ~missing
            t, C = data["target_codes"][ok], data["computed"][ok]
            w = np.ones(t.shape[0]) if F is None else F[ok]
            n_levels = result.matrix.n_levels
            freq = np.bincount(t, weights=w, minlength=n_levels)
            total = np.bincount(t, weights=w * C, minlength=n_levels)
            if self._levels is None:
                self._levels = (freq, total)
            else:
                self._levels = (self._levels[0] + freq, self._levels[1] + total)
        return self

    def merge(self, other):
        """Add the sums of another ``SummaryTotals`` (the chunks it saw) to these."""
        if other._matrix is None:
            return self
        if self._matrix is None:
            self._matrix, self._name = other._matrix, other._name
        for key, value in other._totals.items():
            if _additive(key):
                self._totals[key] = self._totals.get(key, 0.0) + value
            elif key not in self._totals:
                self._totals[key] = np.nan  # a ratio: computed in summary()
        self._wrong += other._wrong
        self._weight_all += other._weight_all
        if other._levels is not None:
            self._levels = other._levels if self._levels is None else (
                self._levels[0] + other._levels[0], self._levels[1] + other._levels[1])
        return self

    def summary(self):
        """The summary statistics of every case added (a Series, as ``decide`` gives)."""
        from ._kernels import prior_adjustment_weights

        if self._matrix is None:
            raise ValueError("no result was added")
        matrix = self._matrix
        word = "loss" if matrix.sign < 0 else "profit"
        out = dict(self._totals)
        freq = out["frequency"]
        for key in out:
            if key.startswith("average_"):
                base = out.get("total_" + key[len("average_"):], np.nan)
                out[key] = base / freq if freq > 0 else np.nan
        if "roi" in out:
            out["roi"] = float(roi(out[f"total_{word}"], out["total_investment"]))
        if "misclassification_rate" in out:
            out["misclassification_rate"] = (
                self._wrong / self._weight_all if self._weight_all > 0 else np.nan)
        if self._levels is not None:
            freq_l, total_l = self._levels
            L = matrix.n_levels
            paw = prior_adjustment_weights(np.arange(L), freq_l, matrix.priors, L)
            if paw is None:  # a level with a positive prior has no case
                adj, avg = np.nan, np.nan
            else:
                adj = float(paw @ total_l) + 0.0
                den = float(paw @ freq_l)
                avg = adj / den if den > 0 else np.nan
            out[f"adjusted_total_{word}"], out[f"adjusted_average_{word}"] = adj, avg
        return pd.Series(out, name=self._name, dtype=_FLOAT)


def _user_sign(x, sign):
    """Profit-oriented array in the user's sign (in place; no negative zeros)."""
    if sign < 0:
        np.negative(x, out=x)
        x += 0.0
    return x


_DECISION_DTYPES = {}


def _decision_dtype(decisions):
    """The categorical dtype of a decision column, built once per tuple of decisions
    (validating the categories costs more than the rest of scoring one row)."""
    dtype = _DECISION_DTYPES.get(decisions)
    if dtype is None:
        if len(_DECISION_DTYPES) >= 256:
            _DECISION_DTYPES.clear()
        dtype = _DECISION_DTYPES[decisions] = pd.CategoricalDtype(list(decisions))
    return dtype


# Per tuple of summary keys: its pandas Index (immutable), built once; building the
# Index is most of the cost of the summary Series when scoring one case.
_SUMMARY_INDEXES = {}


def _label_index(keys):
    """The pandas Index of a tuple of names (summary entries, case columns), cached."""
    index = _SUMMARY_INDEXES.get(keys)
    if index is None:
        if len(_SUMMARY_INDEXES) >= 256:
            _SUMMARY_INDEXES.clear()
        index = _SUMMARY_INDEXES[keys] = pd.Series(dict.fromkeys(keys, 0.0)).index
    return index


try:  # pandas' block manager from column arrays, without consolidating them
    from pandas.core.internals.construction import arrays_to_mgr as _arrays_to_mgr
except ImportError:  # pragma: no cover - another pandas: the public constructor
    _arrays_to_mgr = None


_PANDAS_MAJOR = int(pd.__version__.split(".")[0])
# pandas 2 asks which manager to build
_MGR_KWARGS = {} if _PANDAS_MAJOR >= 3 else {"typ": "block"}


def _copy_on_write():
    """Whether pandas copies a block shared with another object before writing into it:
    always from pandas 3; in pandas 2 only with ``mode.copy_on_write`` set to True."""
    if _PANDAS_MAJOR >= 3:
        return True
    try:
        return pd.get_option("mode.copy_on_write") is True
    except (KeyError, ValueError):  # pragma: no cover - an option-less pandas 2
        return False


def cases_frame(columns, index, *, share=True):
    """The cases table of a dict of equally long arrays, over the arrays' own memory.

    What ``pd.DataFrame(columns, index=index, copy=False)`` gives: every column its own
    block, a view of its array, none copied (pandas' usual constructor consolidates the
    float columns into one 2-D block, a copy of every float column: 16 MB per column at
    2,000,000 cases), with the column Index cached (scoring one case pays mostly for
    building the frame). Through pandas' block manager where it has the constructor,
    else the public one (the same frame).

    The arrays and the frame then share memory: :func:`build_decision_result` keeps
    pandas' Copy-on-Write references to the frame's blocks (:func:`_shared_blocks`), so
    that an edit of the table copies the block it writes into instead of the arrays.
    Without Copy-on-Write (pandas 2 by default), or with ``share=False``, the float
    columns are consolidated into one block, a copy, as pandas' constructor does.
    """
    names = _label_index(tuple(columns)).view()
    if not share:
        from_arrays = getattr(pd.DataFrame, "_from_arrays", None)
        if from_arrays is not None:
            try:
                return from_arrays(list(columns.values()), columns=names, index=index)
            except TypeError:  # another pandas signature: the public way
                pass
        return pd.DataFrame(columns, index=index, columns=names)
    if _arrays_to_mgr is not None:
        try:
            mgr = _arrays_to_mgr(list(columns.values()), names, index, consolidate=False,
                                 **_MGR_KWARGS)
            return pd.DataFrame._from_mgr(mgr, axes=mgr.axes)
        except (TypeError, ValueError, AttributeError):  # another signature: the public way
            pass
    return pd.DataFrame(columns, index=index, columns=names, copy=False)


def _shared_blocks(frame):
    """Shallow copies of the blocks of ``frame`` (the same memory), to be kept alive.

    Under Copy-on-Write pandas copies a block before writing into it while another
    block refers to the same values. Holding these references keeps every in-place
    edit of ``frame`` (``frame.loc[i, c] = v``, ``frame[c] *= 2``, ``fillna(...,
    inplace=True)``) away from the arrays the frame was built over, which the result's
    summaries read later; the edits themselves work as on any frame.
    """
    mgr = getattr(frame, "_mgr", None)
    blocks = getattr(mgr, "blocks", None)
    try:
        return tuple(blk.copy(deep=False) for blk in blocks)
    except (TypeError, AttributeError):  # pragma: no cover - another pandas
        return frame.copy(deep=False)


def summary_series(values, name):
    """The float64 summary Series of a dict of numbers, keys in their order (what
    ``pd.Series(values, name=name, dtype=float)`` gives, with the Index cached)."""
    index = _label_index(tuple(values))
    data = np.array(list(values.values()), dtype=_FLOAT)
    # a view: the caller may rename its index without touching the cached one
    return pd.Series(data, index=index.view(), name=name, copy=False)


def build_decision_result(matrix, decision, expected, *, computed=None, best=None,
                          investment=None, roi_values=None, missing=None,
                          sample_weight=None, target_codes=None, misclassified=None,
                          threshold=None, do_nothing="do nothing", index=None,
                          target_name="target", extra_summary=None):
    """A :class:`DecisionResult` from decisions already made and their figures.

    Every array is per case and in profit orientation; the float arrays are turned to
    the user's sign in place (the result owns them). The summary covers the cases
    without a missing cost, weighted by ``sample_weight``.

    Parameters
    ----------
    matrix : DecisionMatrix
        The matrix the decisions were made with.
    decision : ndarray of int, shape (n,)
        Index of each case's decision into ``matrix.decisions``; -1 for none (a
        missing decision), ``matrix.n_decisions`` for ``do_nothing`` (with
        ``threshold``).
    expected : ndarray of shape (n,)
        Expected profit of the decision.
    computed, best : ndarray of shape (n,), default=None
        Computed ``Q(i, T(i), D(i))`` and best possible ``max_d Q(i, T(i), d)`` profit
        (both or neither: a known target).
    investment : ndarray of shape (n,), default=None
        Investment cost of the decision (revenue matrices).
    roi_values : ndarray of shape (n,), default=None
        ``roi(computed, investment)`` when the caller has it already.
    missing : ndarray of bool, shape (n,), default=None
        Cases with a missing cost, left out of the summary.
    sample_weight : ndarray of shape (n,), default=None
        Validated frequencies.
    target_codes : ndarray of int, shape (n,), default=None
        Level codes of the target (categorical; needed for the priors' adjusted
        figures).
    misclassified : float, default=None
        Frequency of the cases whose most probable level is not their target (gives
        ``misclassification_rate``).
    threshold : float, default=None
        The threshold of an implicit do-nothing decision, if any.
    do_nothing : str, default="do nothing"
        Name of that decision.
    index : pandas.Index, default=None
        Index of the cases table (a RangeIndex by default).
    target_name : str, default="target"
        Suffix of the output columns.
    extra_summary : dict, default=None
        Further entries appended to the summary (numbers), in their order.

    Returns
    -------
    DecisionResult
    """
    n = decision.shape[0]
    sign = matrix.sign
    letter = "L" if sign < 0 else "P"
    decisions = tuple(matrix.decisions) + ((do_nothing,) if threshold is not None else ())
    decision = decision.astype(code_dtype(len(decisions)), copy=False)
    has_y = computed is not None
    # the table shares the arrays only where pandas copies shared blocks before writing
    # into them; else its own float block and decision codes (edits must not reach data)
    share = _copy_on_write()
    cols = {
        f"D_{target_name}": pd.Categorical.from_codes(
            decision if share else decision.copy(), dtype=_decision_dtype(decisions)),
        f"E{letter}_{target_name}": _user_sign(expected, sign),
    }
    if has_y:
        if roi_values is None and investment is not None:
            roi_values = roi(computed, investment)  # profit orientation: revenue only
        cols[f"C{letter}_{target_name}"] = _user_sign(computed, sign)
        cols[f"B{letter}_{target_name}"] = _user_sign(best, sign)
    if investment is not None:
        cols[f"IC_{target_name}"] = investment
        if has_y:
            cols[f"ROI_{target_name}"] = roi_values
    if index is None:
        index = pd.RangeIndex(n)
    cases = cases_frame(cols, index, share=share)
    data = {
        "decision": decision, "expected": expected, "computed": computed, "best": best,
        "investment": investment, "missing": np.zeros(n, dtype=bool) if missing is None
        else missing, "sample_weight": sample_weight, "target_codes": target_codes,
        "misclassified": misclassified, "threshold": threshold,
    }
    summary = _summary(_Sums(sample_weight, data["missing"]), data, matrix)
    if extra_summary:
        summary.update(extra_summary)
    summary = summary_series(summary, target_name)
    result = DecisionResult(cases, summary, matrix, decisions, target_name)
    result._case_data = data
    # the table is a view of ``data``'s arrays: edits of the table copy, never write there
    result._shared = _shared_blocks(cases) if share else None
    return result


def insert_confidence_columns(cases, matrix, target_name, margin, confidence):
    """Insert ``MARGIN_<target_name>`` and ``CONF_<target_name>`` into the cases table
    ``cases`` (in place), right after its expected profit (``EP_``) or, for a loss
    matrix, expected loss (``EL_``) column: where the tree's ``decide(confidence=True)``
    and the scoring of a file put them.

    ``margin`` and ``confidence`` are per case (each case's leaf's figures).
    """
    letter = "L" if matrix.sign < 0 else "P"
    at = cases.columns.get_loc(f"E{letter}_{target_name}") + 1
    cases.insert(at, f"MARGIN_{target_name}", margin)
    cases.insert(at + 1, f"CONF_{target_name}", confidence)


def constant_costs(matrix):
    """Per decision: its constant cost, 0 without a cost, NaN for a cost variable."""
    costs = matrix.costs or {}
    out = np.zeros(matrix.n_decisions, dtype=_FLOAT)
    for j, d in enumerate(matrix.decisions):
        c = costs.get(d)
        if isinstance(c, str):
            out[j] = np.nan
        elif c is not None:
            out[j] = float(c)
    return out


def realised_profits(matrix, decision, cons, target):
    """Investment, computed and best profit of decisions already made.

    Parameters
    ----------
    matrix : DecisionMatrix
    decision : ndarray of int, shape (n,)
        Decision index of every case (none missing).
    cons : Consequences or None
        The cases' consequences; None when their costs are unknown (then the
        investment is known only for decisions without a cost variable).
    target : ndarray of shape (n,) or None
        Level codes (categorical) or values (interval) of the actual target; None
        gives no computed or best profit.

    Returns
    -------
    investment, computed, best : ndarray of shape (n,) or None
        Profit orientation. A missing cost (consequence) gives NaN where it is
        needed: the investment and the computed profit need the chosen decision's
        cost, the best profit every decision's. ``investment`` is None unless the
        matrix is of kind ``"revenue"``.
    """
    IC = C = B = None
    if matrix.kind == "revenue":
        IC = cons.costs(decision) if cons is not None else constant_costs(matrix)[decision]
    if target is not None:
        plain = cons.case_costs is None and cons.case_q is None and not matrix.is_interval
        if plain:  # Q(T(i), d) from the matrix alone: gather, no (n, D) work array
            base = np.asarray(cons.base, dtype=_FLOAT)
            C = base[target, decision]
            B = base.max(axis=1)[target]
        else:  # np.max propagates NaN
            q = cons.q_actual(target)
            C = np.take_along_axis(q, decision.astype(np.intp)[:, None], axis=1)[:, 0]
            B = q.max(axis=1)
    return IC, C, B
