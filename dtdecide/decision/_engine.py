"""The decision engine: posteriors (or predictions) + a decision matrix -> decisions."""

import numbers
from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._dtypes import code_dtype
from .._jit import kernels_mode, use_compiled
from .._parallel import check_n_jobs, one_blas_thread, thread_pool
from ._capacity import _as_float, check_method
from ._kernels import (
    _FLOAT,
    _adjust_posteriors,
    _check_priors,
    _TargetEncoder,
    check_posterior_rows,
    decide_arrays,
    roi,
)
from ._matrix import DecisionMatrix
from ._result import build_decision_result
from ._validation import (
    check_same_index,
    check_sample_weight,
    float_array,
    numeric_cost_column,
    refuse_unicode_forms,
    reworded,
    text_labels,
)

__all__ = ["decide", "mean_costs"]

# rows per chunk: the work arrays of a chunk (posteriors, A^T, codes) then stay within a
# core's L2 cache; measured on 2M cases x 3 levels x 4 decisions, 32768 rows was 10-20%
# faster than 131072 and than 16384 (more Python overhead per case)
_CHUNK_ROWS = 1 << 15
# categorical matrices with additive costs take _decide_chunks_additive (tests switch it
# off to compare against the general path)
_FAST_KERNEL = True
# tolerance on posterior rows summing to one
_SUM_TOL = 1e-6
# the reference input of the pandas alignment rule
_P = "posteriors_or_predictions"


def _one_blas_thread(active):
    """Context in which BLAS runs on one thread (when ``active``).

    The per-chunk products are tiny (n_levels x n_decisions) and the dot products of
    the summary are memory bound; threaded BLAS only adds contention there. The limit
    is the package's counted one (:func:`dtdecide._parallel.one_blas_thread`).
    """
    return one_blas_thread(active)


def target_encoder(y, levels, n):
    """The :class:`_TargetEncoder` of a categorical target of ``n`` cases.

    ``y`` is 1-D: a pandas categorical is encoded through its category codes, a Series or
    Index through its values, anything else through ``np.asarray``. A ``ValueError``
    names ``y`` when it is not 1-D or not ``n`` long.
    """
    if isinstance(getattr(y, "dtype", None), pd.CategoricalDtype):
        y_arr = y  # encoded through its category codes
    elif isinstance(y, (pd.Series, pd.Index)):
        y_arr = y.to_numpy()
    else:
        y_arr = np.asarray(y)
    if np.ndim(y_arr) != 1:
        raise ValueError(f"y must be 1-D; got shape {np.shape(y_arr)}")
    t_enc = _TargetEncoder(y_arr, levels)
    if t_enc.n_samples != n:
        raise ValueError(f"y must have one value per case ({n}); got {t_enc.n_samples}")
    return t_enc


def _posterior_array(P, matrix):
    """Posteriors (n, T) in level order, or predictions (n,), plus the index."""
    name = "posteriors_or_predictions"
    index = P.index if isinstance(P, (pd.DataFrame, pd.Series)) else None
    if matrix.is_interval:
        if isinstance(P, pd.DataFrame):
            if P.shape[1] != 1:
                raise ValueError(
                    f"{name} must hold one column of predictions for an interval matrix; "
                    f"got {P.shape[1]} columns"
                )
            P = P.iloc[:, 0]
        arr = float_array(P, name, "numeric predictions")
        if arr.ndim == 2 and arr.shape[1] == 1:
            arr = arr[:, 0]
        if arr.ndim != 1:
            raise ValueError(
                f"{name} must be 1-D predictions for an interval matrix; got shape {arr.shape}"
            )
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} must be finite predictions (no NaN or infinity)")
        return arr, index

    levels = list(matrix.levels)
    if isinstance(P, pd.DataFrame):
        cols = list(P.columns)
        order = []
        for lv in levels:
            if lv in cols:
                order.append(cols.index(lv))
                continue
            hits = [j for j, c in enumerate(cols) if str(c) == str(lv)]
            if len(hits) != 1:
                refuse_unicode_forms(sorted({*map(str, levels), *map(str, cols)}),
                                     f"the columns of {name} and the levels", "levels")
                raise ValueError(
                    f"{name} has no column for level {lv!r}; a DataFrame of posteriors "
                    f"must have one column per level {levels!r}; got columns {cols!r}"
                )
            order.append(hits[0])
        extra = [c for j, c in enumerate(cols) if j not in order]
        if extra:
            raise ValueError(
                f"{name} has columns that are not levels of the decision matrix: {extra!r}"
            )
        P = P.iloc[:, order]
    arr = float_array(P, name, "numeric posteriors")
    if arr.ndim != 2 or arr.shape[1] != len(levels):
        raise ValueError(
            f"{name} must have shape (n_samples, n_levels={len(levels)}) with columns in "
            f"level order {levels!r}; got shape {arr.shape}"
        )
    return arr, index


def _check_posterior_chunk(post, offset):
    check_posterior_rows(post, offset, name="posteriors_or_predictions", tol=_SUM_TOL)


def _decision_cost_columns(decision_costs, matrix, n, index, given_index):
    """Validated ``decision_costs`` of :func:`decide`.

    Returns None (decide with ``costs``), a dict of float columns of length ``n`` (one
    per cost variable; a constant is a read-only broadcast view, no memory per case)
    for an additive matrix, or the consequences of a case-specific matrix.
    """
    name = "decision_costs"
    if decision_costs is None:
        return None
    if matrix.is_case_specific:
        if matrix.case_values is not None:
            raise ValueError(
                f"{name} must be None for a case-specific matrix with bound consequences "
                "(values=); build an unbound one and pass the actual consequences as "
                f"costs= and the ones to decide with as {name}="
            )
        if isinstance(decision_costs, pd.DataFrame):
            check_same_index(decision_costs, given_index, name, reference=_P)
        try:
            return matrix.resolve(decision_costs, n_samples=n, index=index)
        except (TypeError, ValueError) as exc:
            raise reworded(exc, f"{name} (the consequences to decide with): {exc}") from None
    if matrix.kind != "revenue":
        raise ValueError(
            f"{name} must be None for a {matrix.kind} matrix: case costs are only allowed "
            f"with kind='revenue'; got {type(decision_costs).__name__}"
        )
    if not matrix.cost_variables:
        raise ValueError(
            f"{name} replaces the cost-variable columns of the matrix, and this matrix has "
            f"none (its costs are {matrix.costs!r}); got {type(decision_costs).__name__}"
        )
    if isinstance(decision_costs, pd.DataFrame):
        check_same_index(decision_costs, given_index, name, reference=_P)
    elif not isinstance(decision_costs, (Mapping, pd.Series)):
        raise TypeError(
            f"{name} must be a DataFrame, a dict of arrays or numbers, or a Series of "
            f"numbers indexed by cost column; got {type(decision_costs).__name__}"
        )
    absent = [v for v in matrix.cost_variables if v not in decision_costs]
    if absent:
        raise ValueError(
            f"{name} is missing the cost column(s) {absent!r} used by the decision matrix "
            f"(cost variables: {list(matrix.cost_variables)!r})"
        )
    given = {}
    for var in matrix.cost_variables:
        col = decision_costs[var]
        if isinstance(col, (str, bytes)):
            raise TypeError(f"{name}[{var!r}] must be a number or a column of numbers; got "
                            f"{col!r}")
        if isinstance(col, numbers.Number) or (isinstance(col, np.ndarray) and col.ndim == 0):
            if isinstance(col, (bool, np.bool_)) or not isinstance(col, numbers.Real) and \
                    not (isinstance(col, np.ndarray) and col.dtype.kind in "fiu"):
                raise TypeError(f"{name}[{var!r}] must be a real number; got {col!r}")
            value = float(col)
            if not np.isfinite(value):
                raise ValueError(f"{name}[{var!r}] must be a finite number; got {value!r}")
            col = np.broadcast_to(np.float64(value), (n,))
        given[var] = col
    try:
        return matrix._cost_columns(given, n, index)
    except (TypeError, ValueError) as exc:
        raise reworded(exc, f"{name} (the costs to decide with): {exc}") from None


def _decide_chunks(P, matrix, chunk_consequences, t_all, rho, thr, chunk, missing,
                   D_codes, E, C, B, IC, cls_wrong, F, decision_consequences=None):
    """Fill the output arrays chunk by chunk (profit orientation).

    ``decision_consequences(s, e)``, when given, gives the consequences the decisions
    and expected profits are computed from; ``chunk_consequences`` then only serves
    the realised figures (IC, CP, BP). A case missing in either is missing.

    Returns the misclassified frequency (None without a categorical target).
    """
    n = P.shape[0]
    D = matrix.n_decisions
    has_y = t_all is not None
    is_revenue = IC is not None
    for s in range(0, n, chunk):
        e = min(s + chunk, n)
        post = P[s:e]
        if not matrix.is_interval:
            _check_posterior_chunk(post, s)
            if rho is not None:
                post = _adjust_posteriors(post, matrix.priors, rho)
        cons_c = chunk_consequences(s, e)
        if decision_consequences is None:
            A = cons_c.expected(post)
            miss = cons_c.has_missing
        else:
            cons_d = decision_consequences(s, e)
            A = cons_d.expected(post)
            miss = cons_c.has_missing | cons_d.has_missing
        d_idx, e_val = decide_arrays(A)
        missing[s:e] = miss
        d_idx[miss] = -1
        e_val[miss] = np.nan
        ic = cons_c.costs(d_idx) if is_revenue else None
        skip = None
        if thr is not None:
            skip = e_val < thr  # NaN compares False
            d_idx[skip] = D
            e_val[skip] = 0.0
            if ic is not None:
                ic[skip] = 0.0
        D_codes[s:e] = d_idx
        E[s:e] = e_val
        if ic is not None:
            IC[s:e] = ic
        if has_y:
            q = cons_c.q_actual(t_all[s:e])
            safe = np.where((d_idx < 0) | (d_idx >= D), 0, d_idx)
            c_val = np.take_along_axis(q, safe[:, None], axis=1)[:, 0]
            c_val = np.where(d_idx < 0, np.nan, c_val)
            b_val = q[:, 0].copy()  # column by column: faster than q.max(axis=1)
            for j in range(1, D):
                np.maximum(b_val, q[:, j], out=b_val)
            b_val[miss] = np.nan
            if thr is not None:
                c_val[skip] = 0.0
                b_val = np.maximum(b_val, 0.0)  # NaN stays NaN
            C[s:e] = c_val
            B[s:e] = b_val
            if cls_wrong is not None:
                cls_wrong[s:e] = np.argmax(post, axis=1) != t_all[s:e]
    if cls_wrong is None:
        return None
    if F is None:
        return np.count_nonzero(cls_wrong)
    return float(np.dot(F, cls_wrong))


class _AdditivePlan:
    """A categorical matrix with additive costs, split once for the fast chunk kernel.

    ``Q(i,t,d) = base(t,d) - cost(i,d)`` where each decision's cost is a constant
    (0 without a cost) or a cost column. Nothing of size ``(n, n_decisions)`` is ever
    built: constants act per level, columns one decision at a time.
    """

    def __init__(self, matrix, cost_cols, decision_cols=None, *, scan=True):
        # scan=False: the columns are not read here (a kernel that tests every case's
        # costs for NaN itself): any_nan is then True and ic_nonneg None
        base = np.ascontiguousarray(matrix.profit_values, dtype=_FLOAT)
        T, D = base.shape
        self.n_levels, self.n_decisions = T, D
        self.base_flat = base.ravel()
        self.base_t = np.ascontiguousarray(base.T)  # (D, T): A^T = base^T post^T
        self.ones = np.ones(T)
        self.has_costs = bool(matrix.costs)
        self.const = np.zeros(D)
        self.var = []  # (decision index, full cost column, column holds a NaN)
        for j, d in enumerate(matrix.decisions):
            c = matrix.costs.get(d)
            if isinstance(c, str):
                col = cost_cols[c]
                self.var.append((j, col, bool(np.isnan(np.sum(col))) if scan else True))
            elif c is not None:
                self.const[j] = float(c)
        self.const_flat = np.tile(self.const, T)  # const(d) at T * D + d
        var_idx = {j for j, _, _ in self.var}
        self.const_idx = [j for j in range(D) if j not in var_idx]
        # best possible profit over the decisions whose cost is the same for every case,
        # per level (Q(t,d) = base(t,d) - const(d), as the general path computes it)
        self.best_const = None
        if self.const_idx:
            q_const = base[:, self.const_idx] - self.const[self.const_idx] \
                if self.has_costs else base[:, self.const_idx]
            best = q_const[:, 0].copy()
            for k in range(1, q_const.shape[1]):
                np.maximum(best, q_const[:, k], out=best)
            self.best_const = best
        # the cost columns the decisions are taken with (``decision_costs``); the
        # actual ones (``var``) serve IC, CP and BP. Without decision costs, the same.
        if decision_cols is None:
            self.dvar = self.var
        else:
            self.dvar = [(j, decision_cols[matrix.costs[d]], False)
                         for j, d in enumerate(matrix.decisions)
                         if isinstance(matrix.costs.get(d), str)]
            self.dvar = [(j, col, bool(np.isnan(np.sum(col)))) for j, col, _ in self.dvar]
        self.any_nan = any(has_nan for _, _, has_nan in self.var + self.dvar)
        # investment costs are then never negative nor -0 (a chosen column value v enters
        # as 0 + v, which turns -0 into +0; NaN compares False and gives NaN either way)
        self.ic_nonneg = None if not scan else not np.any(np.signbit(self.const)) and all(
            not np.any(col < 0) for _, col, _ in self.var
        )


def _first_max(rows, out_idx, out_val, gt, step, *, need_value=True):
    """Index and value of the first maximum over ``rows`` (k, m), one row at a time.

    Equal to ``argmax`` over the first axis (ties -> lowest index) for rows without
    NaN. Branch-free vector passes only (masked writes mispredict on random data):
    row ``j`` wins where it beats the running maximum, and as ``j`` only grows the
    running index is ``max(index, j * wins)``. ``out_val`` is the maximum (scratch
    space when ``need_value`` is False).
    """
    k = rows.shape[0]
    if k == 1:
        out_idx[...] = 0
        out_val[...] = rows[0]
        return
    np.greater(rows[1], rows[0], out=gt)
    np.copyto(out_idx, gt, casting="unsafe")
    if k > 2 or need_value:
        np.maximum(rows[0], rows[1], out=out_val)  # the same value where equal
    for j in range(2, k):
        np.greater(rows[j], out_val, out=gt)
        np.multiply(gt, j, out=step, casting="unsafe")
        np.maximum(out_idx, step, out=out_idx)
        if j < k - 1 or need_value:
            np.maximum(out_val, rows[j], out=out_val)


def _check_posterior_sums(post, s_row, offset):
    """Fused validity test of a posterior chunk; the detailed check only on failure.

    ``|s - 1| <= tol`` for every row is tested as two reductions (exact: ``s - 1`` and
    ``1 - s`` are computed exactly near 1), NaN fails it, and ``min(post) >= 0``.
    """
    ok = (
        float(s_row.max()) - 1.0 <= _SUM_TOL
        and 1.0 - float(s_row.min()) <= _SUM_TOL
        and float(post.min()) >= 0.0
    )
    if not ok:
        _check_posterior_chunk(post, offset)


def _roi_into(C, IC, out):
    """``roi(C, IC)`` written into ``out``: one division in the usual case.

    ``C / IC`` already gives the four ROI cases wherever ``IC`` is ``+0`` (``+inf``,
    NaN, ``-inf``) or positive; only a negative (or ``-0``) investment needs the
    general kernel.
    """
    if np.signbit(IC).any():
        out[...] = roi(C, IC)
        return
    with np.errstate(divide="ignore", invalid="ignore"):
        np.divide(C, IC, out=out)


def _chunk_products(P, s, e, plan, matrix, rho, *, check):
    """The posteriors of rows ``s:e`` (adjusted to ``matrix.priors`` with ``rho``, if given),
    their row sums ``s``, the posteriors level by level (contiguous rows) and ``A^T``
    (``(D, m)``: ``A(i, d) = sum_t post(i, t) base(t, d) - cost(i, d) s(i)``) with the
    constant costs subtracted; the rows' own cost columns are the caller's. ``check``:
    the raw posteriors' sums are checked here (else by the caller). Returns ``(post,
    s_row, post_t, AT, tmp)``, ``tmp`` a work row of ``m`` floats."""
    post = P[s:e]
    s_row = np.dot(post, plan.ones)
    if check:
        _check_posterior_sums(post, s_row, s)
    if rho is not None:
        post = _adjust_posteriors(post, matrix.priors, rho)
        s_row = np.dot(post, plan.ones)
    tmp = np.empty(e - s)
    post_t = np.ascontiguousarray(post.T)
    AT = np.dot(plan.base_t, post_t)
    if plan.has_costs:
        for j in plan.const_idx:
            if plan.const[j] != 0.0:  # subtracting 0 * s changes no bit
                np.multiply(s_row, plan.const[j], out=tmp)
                np.subtract(AT[j], tmp, out=AT[j])
    return post, s_row, post_t, AT, tmp


def _additive_chunk(P, matrix, plan, t_enc, rho, thr, s, e, missing, D_codes, E, C, B, IC,
                    ROI, F, t_keep):
    """Rows ``s:e`` of the NumPy chunk kernel (see :func:`_decide_chunks_additive`).

    Returns the chunk's misclassified frequency (None without a target).
    """
    D = plan.n_decisions
    T = plan.n_levels
    has_y = t_enc is not None
    m = e - s
    _, s_row, post_t, AT, tmp = _chunk_products(P, s, e, plan, matrix, rho, check=True)
    gt = np.empty(m, dtype=bool)
    step = np.empty(m, dtype=D_codes.dtype)
    if plan.has_costs:
        for j, col, _ in plan.dvar:
            np.multiply(col[s:e], s_row, out=tmp)
            np.subtract(AT[j], tmp, out=AT[j])
    d_c = D_codes[s:e]
    e_c = E[s:e]
    _first_max(AT, d_c, e_c, gt, step)
    del AT
    if has_y:
        t_c = t_enc.codes(s, e)
        if t_keep is not None:
            t_keep[s:e] = t_c
        t_i = t_c.astype(np.intp, copy=False)
        # flat code T(i) * D + D(i) into the (T, D) tables
        code = t_i * D
        code += d_c
    ic = None
    if IC is not None:
        # Cost(i, D(i)): the constant part by a gather, a cost column where chosen
        # (its decision has no constant, so adding mask * column is exact); codes
        # are in range, "clip" only skips the bounds check
        ic = IC[s:e]
        if has_y:
            np.take(plan.const_flat, code, out=ic, mode="clip")
        else:
            np.take(plan.const, d_c.astype(np.intp), out=ic, mode="clip")
        for j, col, _ in plan.var:
            np.equal(d_c, j, out=gt)
            np.multiply(gt, col[s:e], out=tmp)
            np.add(ic, tmp, out=ic)
    if has_y:
        c_c = C[s:e]
        np.take(plan.base_flat, code, out=c_c, mode="clip")  # base(T(i), D(i))
        if plan.has_costs:
            np.subtract(c_c, ic, out=c_c)
        b_c = B[s:e]
        first = True
        if plan.best_const is not None:
            np.take(plan.best_const, t_i, out=b_c, mode="clip")
            first = False
        for j, col, _ in plan.var:
            np.take(plan.base_t[j], t_i, out=tmp, mode="clip")
            np.subtract(tmp, col[s:e], out=tmp)
            if first:
                b_c[...] = tmp
                first = False
            else:
                np.maximum(b_c, tmp, out=b_c)
    if plan.any_nan:
        miss = np.zeros(m, dtype=bool)
        for _, col, has_nan in plan.var + (plan.dvar if plan.dvar is not plan.var
                                           else []):
            if has_nan:
                miss |= np.isnan(col[s:e])
        if miss.any():
            missing[s:e] = miss
            d_c[miss] = -1
            e_c[miss] = np.nan
            if ic is not None:
                ic[miss] = np.nan
            if has_y:
                c_c[miss] = np.nan
                b_c[miss] = np.nan
    if thr is not None:
        skip = e_c < thr  # NaN compares False
        if skip.any():
            d_c[skip] = D
            e_c[skip] = 0.0
            if ic is not None:
                ic[skip] = 0.0
            if has_y:
                c_c[skip] = 0.0
        if has_y:
            np.maximum(b_c, 0.0, out=b_c)  # NaN stays NaN
    if ROI is not None:
        if plan.ic_nonneg:  # C / IC gives the four ROI cases when no IC is negative
            with np.errstate(divide="ignore", invalid="ignore"):
                np.divide(c_c, ic, out=ROI[s:e])
        else:
            _roi_into(c_c, ic, ROI[s:e])
    if not has_y:
        return None
    return _misclassified(post_t, t_i, F, s, e, T, tmp, gt)


def _misclassified(post_t, t_i, F, s, e, T, tmp, gt):
    """Frequency of rows ``s:e`` whose first largest posterior is not their level."""
    m = e - s
    k = np.empty(m, dtype=code_dtype(T))
    kstep = np.empty(m, dtype=k.dtype)
    _first_max(post_t, k, tmp, gt, kstep, need_value=False)
    np.not_equal(k, t_i, out=gt)
    return np.count_nonzero(gt) if F is None else float(np.dot(F[s:e], gt))


class _CompiledChunks:
    """The per-case step of :func:`_additive_chunk` on the compiled kernel
    (:func:`dtdecide.decision._compiled.decide_rows`), chunk by chunk.

    Per chunk the posteriors are checked (and prior-adjusted), and their products with
    the matrix (every nonzero constant cost times the posteriors' sum subtracted) and
    the misclassified frequency are computed by the NumPy steps of the chunk kernel;
    the kernel does the rest in one pass over the chunk's rows, each row its own column
    of the products: the decision costs, the first best decision, investment, computed
    and best profit, missing cases, the implicit do-nothing and ROI, written in place.
    The same outputs as the NumPy chunk kernel, bit for bit.
    """

    def __init__(self, matrix, plan, t_enc, rho, thr, outputs, F, t_keep):
        from . import _compiled

        self.kernel = _compiled.decide_rows
        self.matrix, self.plan, self.t_enc, self.rho, self.thr = matrix, plan, t_enc, rho, thr
        self.missing, self.D_codes, self.E, self.C, self.B, self.IC, self.ROI = outputs
        self.F, self.t_keep = F, t_keep
        self.var_j, self.var_cols = self._columns(plan.var)
        self.dvar_j, self.dvar_cols = self._columns(plan.dvar)
        self.base = np.ascontiguousarray(plan.base_t.T)
        self.best_const = (plan.best_const if plan.best_const is not None
                           else np.zeros(plan.n_levels))
        self.none = np.zeros(0)
        self.no_nodes = np.zeros(0, dtype=np.intp)
        self.no_target = np.zeros(0, dtype=code_dtype(plan.n_levels))

    @staticmethod
    def _columns(var):
        """Decision indices and the cost columns as rows of one (k, n) array (a view
        for one column, no copy)."""
        j = np.array([d for d, _, _ in var], dtype=np.intp)
        cols = [np.asarray(col, dtype=_FLOAT) for _, col, _ in var]
        if not cols:
            return j, np.zeros((0, 0))
        if len(cols) == 1:
            return j, cols[0][None, :]
        return j, np.stack(cols)

    def __call__(self, P, s, e):
        plan, none = self.plan, self.none
        m = e - s
        check = self.rho is None  # else the raw posteriors are checked before adjusting
        post, s_row, post_t, AT, _ = _chunk_products(P, s, e, plan, self.matrix, self.rho,
                                                     check=not check)
        has_y = self.t_enc is not None
        t_c = self.no_target
        if has_y:
            t_c = self.t_enc.codes(s, e)
            if self.t_keep is not None:
                self.t_keep[s:e] = t_c
        var_cols = self.var_cols[:, s:e] if self.var_cols.shape[1] else self.var_cols
        dvar_cols = self.dvar_cols[:, s:e] if self.dvar_cols.shape[1] else self.dvar_cols
        IC, C, B, ROI = self.IC, self.C, self.B, self.ROI
        gt = np.empty(m if has_y else 0, dtype=bool)
        s_min, s_max, p_min = self.kernel(
            leaf=self.no_nodes, direct=True, node_at=AT, node_s=s_row,
            node_class=self.no_nodes, const=plan.const, var_j=self.var_j,
            var_cols=var_cols, dvar_j=self.dvar_j, dvar_cols=dvar_cols,
            check_nan=plan.any_nan, base=self.base, best_const=self.best_const,
            use_best_const=plan.best_const is not None, target=t_c, has_y=has_y,
            weight=none, weighted=False, count_wrong=False, revenue=IC is not None,
            has_costs=plan.has_costs, use_thr=self.thr is not None,
            thr=0.0 if self.thr is None else self.thr, d_out=self.D_codes[s:e],
            e_out=self.E[s:e], ic_out=none if IC is None else IC[s:e],
            c_out=none if C is None else C[s:e], b_out=none if B is None else B[s:e],
            roi_out=none if ROI is None else ROI[s:e], miss_out=self.missing[s:e],
            t_out=t_c, keep_t=False, wrong=none, chunk=m, lo=0, hi=m, post_t=post_t,
            scan_post=True, wrong_out=gt)
        # _check_posterior_sums from the kernel's minima and maxima
        if check and not (s_max - 1.0 <= _SUM_TOL and 1.0 - s_min <= _SUM_TOL
                         and p_min >= 0.0):
            _check_posterior_chunk(post, s)
        if not has_y:
            return None
        return np.count_nonzero(gt) if self.F is None else float(np.dot(self.F[s:e], gt))


def _chunks_on_threads(step, n, chunk, n_threads):
    """``[step(s, e) for each chunk]``, the chunks cut into contiguous ranges, one per
    thread of the package's pool (:func:`dtdecide._parallel.thread_pool`; the calling
    thread works too). An error is raised as the first chunk that fails would raise it
    on one thread: each range stops at its first failing chunk, and the pool raises the
    first range's error in range order."""
    n_chunks = -(-n // chunk)
    bounds = [(c * chunk, min(c * chunk + chunk, n)) for c in range(n_chunks)]
    n_threads = max(1, min(int(n_threads), n_chunks))
    if n_threads == 1:
        return [step(a, b) for a, b in bounds]
    cuts = np.linspace(0, n_chunks, n_threads + 1).astype(np.intp).tolist()

    def run(r):
        return [step(*bounds[c]) for c in range(cuts[r], cuts[r + 1])]

    with thread_pool(n_threads) as pool:
        ranges = pool.map_groups(run, list(range(n_threads)))
    return [x for part in ranges for x in part]


def _compiled_step(n):
    """Whether the per-case step of ``n`` cases runs on the compiled kernel: only under
    ``kernels="compiled"`` (:func:`dtdecide.set_config`, ``DTDECIDE_KERNELS``).

    Under ``"auto"`` the NumPy chunk kernel runs whatever the size and ``n_jobs``: its
    vector passes were faster than the compiled loop on one thread and on two
    (docs/dev/kernels.rst, ``benchmarks/bench_decide_threads.py``).
    """
    return kernels_mode() == "compiled" and use_compiled(n)


def _decide_chunks_additive(P, matrix, plan, t_enc, rho, thr, chunk, missing,
                            D_codes, E, C, B, IC, ROI, F, t_keep, *, n_jobs=1,
                            compiled=False):
    """Fast chunk kernel of :func:`decide` for categorical matrices with additive costs.

    Same outputs (profit orientation) as :func:`_decide_chunks`: the expected profits
    are one matrix product per chunk laid out decision by decision, costs are
    subtracted in place, the first maximum is found with branch-free vector passes,
    the consequences at the chosen decision and the actual level are gathered from the
    small matrix by a flat ``level * n_decisions + decision`` code, and every result is
    written straight into the preallocated output arrays (:func:`_additive_chunk`). The
    target is encoded chunk by chunk (``t_enc``; codes kept in ``t_keep`` when given)
    and the misclassified frequency is summed on the way.

    With ``compiled`` the per-case step runs on the compiled kernel instead
    (:class:`_CompiledChunks`, the same outputs bit for bit); the chunks are shared
    among ``n_jobs`` threads in contiguous ranges, and the chunks' misclassified
    frequencies are added in chunk order, so nothing depends on ``n_jobs``.

    Returns
    -------
    float or None
        Frequency of the cases whose largest posterior is not their level (None
        without a target).
    """
    n = P.shape[0]
    if compiled:
        outputs = (missing, D_codes, E, C, B, IC, ROI)
        kernel = _CompiledChunks(matrix, plan, t_enc, rho, thr, outputs, F, t_keep)

        def step(s, e):
            return kernel(P, s, e)
    else:
        def step(s, e):
            return _additive_chunk(P, matrix, plan, t_enc, rho, thr, s, e, missing,
                                   D_codes, E, C, B, IC, ROI, F, t_keep)

    parts = _chunks_on_threads(step, n, chunk, n_jobs)
    if t_enc is None:
        return None
    wrong = 0.0
    for x in parts:  # chunk order
        wrong += x
    return wrong


def _check_arguments(matrix, target_name, n_jobs, method, time_limit, *, limited):
    """The arguments of :func:`decide` that need no data, checked first.

    ``matrix`` must be a :class:`DecisionMatrix` and ``target_name`` a str; ``n_jobs``
    becomes a thread count (:func:`dtdecide._parallel.check_n_jobs`) and ``method`` /
    ``time_limit`` are checked against whether a capacity or budget limits the
    decisions (``limited``; :func:`._capacity.check_method`). Returns ``(n_threads,
    time_limit)``.
    """
    if not isinstance(matrix, DecisionMatrix):
        raise TypeError(f"matrix must be a DecisionMatrix; got {type(matrix).__name__}")
    if not isinstance(target_name, str):
        raise TypeError(f"target_name must be a str; got {target_name!r}")
    n_threads = check_n_jobs(n_jobs)
    return n_threads, check_method(method, time_limit, limited=limited)


def _chunk_rows(chunk_size):
    """The rows per chunk: ``chunk_size``, or :data:`_CHUNK_ROWS` when it is None.

    A ``ValueError`` names ``chunk_size`` unless it is a positive integer (a bool is
    refused).
    """
    chunk = _CHUNK_ROWS if chunk_size is None else chunk_size
    if not isinstance(chunk, numbers.Integral) or isinstance(chunk, bool) or chunk < 1:
        raise ValueError(f"chunk_size must be a positive integer; got {chunk_size!r}")
    return int(chunk)  # np.uint8(1) overflowed in the chunk arithmetic


def _check_threshold(threshold, do_nothing, matrix):
    """With a ``threshold``: it must be a finite number, and ``do_nothing`` a non-empty
    str that names no decision of ``matrix`` (the implicit decision's name). Without
    one, a ``do_nothing`` other than its default would name nothing and is refused
    rather than ignored (as ``method`` without limits)."""
    if threshold is None:
        if not (isinstance(do_nothing, str) and do_nothing == "do nothing"):
            raise ValueError(
                "do_nothing names the decision a threshold gives the cases below it; give "
                f"threshold= too (got do_nothing={do_nothing!r} and no threshold)")
        return
    if not isinstance(threshold, numbers.Real) or isinstance(threshold, bool) or \
            not np.isfinite(_as_float(threshold)):  # a Fraction, an int beyond a float
        raise ValueError(f"threshold must be a finite number; got {threshold!r}")
    if not isinstance(do_nothing, str) or not do_nothing or do_nothing in matrix.decisions:
        raise ValueError(
            f"do_nothing must be a str that is not a matrix decision (nor empty); got "
            f"{do_nothing!r}"
        )
    text_labels((*matrix.decisions, do_nothing), "do_nothing and the matrix decisions")


def _training_priors(train_priors, matrix):
    """The class proportions of training ``rho`` that the posteriors are adjusted from
    (None: no adjustment).

    ``train_priors`` applies to a categorical matrix that has priors, and must be
    positive for every level whose prior is; each violation is a ``ValueError`` naming
    it, in that order after the priors' own check (:func:`._kernels._check_priors`).
    """
    if train_priors is None:
        return None
    if matrix.is_interval:
        raise ValueError("train_priors only applies to a categorical target")
    rho = _check_priors(train_priors, matrix.n_levels, "train_priors", matrix.levels)
    if matrix.priors is None:
        raise ValueError(
            "train_priors needs priors in the decision matrix to adjust the posteriors "
            "to; got a matrix without priors"
        )
    if np.any((matrix.priors > 0) & (rho == 0)):
        raise ValueError(
            "train_priors must be positive for every level with a positive prior; "
            f"got {rho.tolist()}"
        )
    return rho


def _encode_y(y, matrix, n, given_index, fast):
    """The actual target of the ``n`` cases: ``(t_all, t_enc)``, both None without ``y``.

    A pandas ``y`` must share the posteriors' pandas index (``given_index``). For an
    interval matrix ``t_all`` holds the finite values; for a categorical one the fast
    chunk kernel (``fast``) gets the encoder ``t_enc``, which encodes chunk by chunk,
    and the general path the level codes ``t_all`` (in the smallest code dtype: less
    memory traffic).
    """
    t_all = t_enc = None
    if y is None:
        return t_all, t_enc
    check_same_index(y, given_index, "y", reference=_P)
    if matrix.is_interval:
        try:
            t_all = np.asarray(y, dtype=_FLOAT).reshape(-1)
        except (TypeError, ValueError):
            raise TypeError("y must be numeric for an interval matrix") from None
        if not np.all(np.isfinite(t_all)):
            raise ValueError("y must be finite (no NaN or infinity)")
    else:
        t_enc = target_encoder(y, matrix.levels, n)
        if not fast:
            t_all = t_enc.codes().astype(code_dtype(matrix.n_levels), copy=False)
            t_enc = None
    if t_all is not None and t_all.shape[0] != n:
        raise ValueError(f"y must have one value per case ({n}); got {t_all.shape[0]}")
    return t_all, t_enc


def additive_plan(matrix, costs, n, index, decision_cols=None, *, scan=True):
    """The :class:`_AdditivePlan` of a categorical matrix with additive costs over the
    ``costs`` of ``n`` cases (rows ``index``), validated as :func:`decide` validates them.

    A numeric 2-D array of ``costs`` is refused by :meth:`DecisionMatrix.resolve`, with
    its usual ``TypeError``, before the cost columns are read. ``decision_cols`` and
    ``scan`` are the plan's (the costs to decide with; whether the columns are scanned
    for NaN here).
    """
    if isinstance(costs, np.ndarray) and costs.ndim >= 2 and costs.dtype != object:
        matrix.resolve(costs, n_samples=n, index=index)  # raises the usual TypeError
    cost_cols = matrix._cost_columns(costs, n, index) if matrix.cost_variables else {}
    return _AdditivePlan(matrix, cost_cols, decision_cols, scan=scan)


def _chunk_consequences(matrix, costs, decision_given, n, index):
    """The consequences of the general chunk path, as functions of a chunk ``(s, e)``:
    ``(chunk_consequences, decision_consequences)``, the second None unless the cases
    decide with other costs (``decision_given``, from :func:`_decision_cost_columns`).

    Cost columns of an additive matrix are validated once and resolved chunk by chunk
    (memory bound); other consequences are resolved once and sliced.
    """
    decision_consequences = None
    if matrix.cost_variables and not matrix.is_case_specific:
        cost_cols = matrix._cost_columns(costs, n, index)

        def chunk_consequences(s, e):
            return matrix.resolve({k: v[s:e] for k, v in cost_cols.items()}, n_samples=e - s)

        if decision_given is not None:
            def decision_consequences(s, e):
                return matrix.resolve({k: v[s:e] for k, v in decision_given.items()},
                                      n_samples=e - s)
    else:
        cons = matrix.resolve(costs, n_samples=n, index=index)

        def chunk_consequences(s, e):
            return cons.take(slice(s, e))

        if decision_given is not None:
            def decision_consequences(s, e):
                return decision_given.take(slice(s, e))
    return chunk_consequences, decision_consequences


def _resolve_costs(matrix, costs, decision_costs, n, index, given_index, fast):
    """The consequences :func:`decide` decides and scores with, validated.

    ``costs`` (a DataFrame must share the posteriors' pandas index) must be allowed by
    the matrix, then ``decision_costs`` are validated (:func:`_decision_cost_columns`).
    Returns ``(plan, chunk_consequences, decision_consequences)``: the fast kernel's
    :class:`_AdditivePlan` (``fast``) and two Nones, or None and the general path's
    functions of a chunk (:func:`_chunk_consequences`).
    """
    if isinstance(costs, pd.DataFrame):
        check_same_index(costs, given_index, "costs", reference=_P)
    matrix._check_costs_allowed(costs)
    decision_given = _decision_cost_columns(decision_costs, matrix, n, index, given_index)
    if fast:
        return additive_plan(matrix, costs, n, index, decision_given), None, None
    return (None,) + _chunk_consequences(matrix, costs, decision_given, n, index)


def _decide_limited(P, matrix, *, rho, t_all, t_enc, costs, F, capacity, budget, index,
                    target_name, method, time_limit, threshold, decision_costs):
    """:func:`decide` under ``capacity`` / ``budget``: handed to
    :func:`._capacity.decide_limited` on one thread.

    A threshold or decision costs do not combine with limits (``ValueError``), nor do
    case frequencies other than 1: the allocation counts and totals rows. The whole
    posterior array is checked here (the chunked paths check it chunk by chunk), and
    the target goes as values or level codes.
    """
    if threshold is not None or decision_costs is not None:
        raise ValueError(
            "capacity / budget do not combine with threshold or decision_costs; add "
            "an explicit do-nothing decision to the matrix instead of a threshold"
        )
    if F is not None and np.any(F != 1):
        raise ValueError(
            "capacity / budget do not combine with sample_weight other than 1: the "
            "allocation counts rows and maximises their total, so a row of frequency 3 "
            "would take one unit of a capacity and count once (a row of frequency 0, one "
            "unit too); give one row per case instead of frequencies")
    from ._capacity import decide_limited

    if not matrix.is_interval:
        _check_posterior_chunk(P, 0)
    target = t_all if t_all is not None else (None if t_enc is None else t_enc.codes())
    return decide_limited(P, matrix, rho=rho, target=target, costs=costs,
                          sample_weight=F, capacity=capacity, budget=budget,
                          index=index, target_name=target_name, method=method,
                          time_limit=time_limit)


def _decide_cases(P, matrix, resolved, t_all, t_enc, rho, threshold, chunk, F, n_threads,
                  fast):
    """Every case's decision and figures, chunk by chunk: the per-case computation.

    Allocates the output arrays once (the decision codes in the smallest dtype that
    holds the decisions and the implicit do-nothing; computed and best profit only
    with a target, investment only for a revenue matrix, ROI on the fast path) and
    fills them with the fast chunk kernel (:func:`_decide_chunks_additive`, on
    ``n_threads`` threads) or the general one (:func:`_decide_chunks`), BLAS on one
    thread when there is more than one chunk. ``resolved`` is :func:`_resolve_costs`'s.
    Returns the keyword arguments of :func:`._result.build_decision_result` that hold
    the cases' figures.
    """
    plan, chunk_consequences, decision_consequences = resolved
    n = P.shape[0]
    T, D = matrix.n_levels, matrix.n_decisions
    missing = np.zeros(n, dtype=bool)
    has_y = t_all is not None or t_enc is not None
    is_revenue = matrix.kind == "revenue"
    n_codes = D + (1 if threshold is not None else 0)
    D_codes = np.empty(n, dtype=code_dtype(n_codes))
    E = np.empty(n)
    C = np.empty(n) if has_y else None
    B = np.empty(n) if has_y else None
    IC = np.empty(n) if is_revenue else None
    ROI = np.empty(n) if is_revenue and has_y and fast else None
    cls_wrong = np.empty(n, dtype=bool) if has_y and not matrix.is_interval and not fast \
        else None
    if fast and has_y and matrix.priors is not None:  # the Paw weights need every code
        t_all = np.empty(n, dtype=code_dtype(T))
    thr = None if threshold is None else matrix.sign * float(threshold)

    with _one_blas_thread(n > chunk):
        if fast:
            wrong = _decide_chunks_additive(P, matrix, plan, t_enc, rho, thr, chunk, missing,
                                            D_codes, E, C, B, IC, ROI, F, t_all,
                                            n_jobs=n_threads,
                                            compiled=_compiled_step(n))
        else:
            wrong = _decide_chunks(P, matrix, chunk_consequences, t_all, rho, thr, chunk,
                                   missing, D_codes, E, C, B, IC, cls_wrong, F,
                                   decision_consequences)
    return {"decision": D_codes, "expected": E, "computed": C, "best": B,
            "investment": IC, "roi_values": ROI, "missing": missing,
            "target_codes": t_all, "misclassified": wrong}


def decide(posteriors_or_predictions, matrix, *, y=None, costs=None, decision_costs=None,
           sample_weight=None, train_priors=None, target_name="target", threshold=None,
           do_nothing="do nothing", chunk_size=None, capacity=None, budget=None,
           method="auto", time_limit=None, n_jobs=None):
    """Decide for every case and sum up the profit (or loss) of the decisions.

    For a categorical target, ``A(i,d) = sum_t Q(i,t,d) Post(i,t)`` and the decision
    is ``D(i) = argmax_d A(i,d)`` (ties go to the first decision). For an interval
    target the consequences are interpolated over the knots at the prediction. With
    the target known, the computed profit ``C(i) = Q(i,T(i),D(i))`` and the best
    possible profit ``B(i) = max_d Q(i,T(i),d)`` are added; with a revenue matrix the
    investment cost ``IC(i) = Cost(i,D(i))`` and ``ROI(i)``.

    Parameters
    ----------
    posteriors_or_predictions : array-like or DataFrame
        Categorical target: posteriors of shape (n_samples, n_levels), columns in the
        order of ``matrix.levels``, or a DataFrame whose columns name the levels.
        Rows must be non-negative and sum to one. Interval target: predictions of
        shape (n_samples,).
    matrix : DecisionMatrix
        The decision matrix: levels (or knots) and decisions, kind, costs and priors.
    y : array-like of shape (n_samples,), default=None
        Actual target (levels of the matrix, or numbers for an interval matrix).
    costs : DataFrame, dict of arrays or ndarray, default=None
        Cost-variable columns named by ``matrix.costs``, or the case-specific
        consequences of a case-specific matrix. Matched to cases by position. These
        are the *actual* costs: with ``decision_costs`` they only enter ``IC_``,
        ``CP_``, ``BP_``, ``ROI_`` and the realised summaries.
    decision_costs : DataFrame, dict, Series or ndarray, default=None
        The costs to *decide* with, when they differ from the actual ones (costs
        known only after the action, such as the number of calls a client needed).
        The same forms as ``costs``, and also constants: a dict (or a Series indexed
        by cost column, e.g. from :func:`mean_costs`) whose values are numbers. Only
        the cost-variable columns are replaced; constant costs of the matrix stay.
        ``A(i,d)``, ``D_`` and ``EP_`` (and the ``threshold`` test) then use
        ``decision_costs``, everything realised uses ``costs``. A case missing either
        cost is missing. None (the default) decides with ``costs``.
    sample_weight : array-like of shape (n_samples,), default=None
        Frequencies ``F(i)`` (non-negative).
    train_priors : array-like of shape (n_levels,), default=None
        Class proportions the model was trained on. Together with ``matrix.priors``
        the posteriors are adjusted to the priors before deciding.
    target_name : str, default="target"
        Suffix of the output columns.
    threshold : float, default=None
        Adds an implicit do-nothing decision with consequence 0: a case whose best
        expected profit is below ``threshold`` (for a loss matrix: whose expected
        loss is above it) takes ``do_nothing`` instead (EP = CP = 0, IC = 0, ROI NaN),
        and BP becomes ``max(BP, 0)`` for every case. Summaries computed with an
        implicit do-nothing decision are not comparable across models unless every
        model uses the same one.
    do_nothing : str, default="do nothing"
        Name of the implicit decision of ``threshold``; must not be a matrix decision.
        Refused without a ``threshold`` (it would name nothing).
    chunk_size : int, default=None
        Rows processed at a time (memory bound); by default 32768.
    capacity : dict, default=None
        ``{decision: N}``: at most ``N`` cases may get that decision; the cases are
        chosen to maximise the total expected profit (see :func:`allocate`). At least
        one decision must stay unlimited. Every row is one case: ``sample_weight``
        other than 1 is refused with a capacity or a budget.
    budget : dict, default=None
        ``{decision: B}``: the investment cost (revenue matrix) of the cases given that
        decision is at most ``B`` (solved by ``method``).
    method : {"auto", "exact", "relaxation"}, default="auto"
        How a budget is solved (see :func:`allocate`): ``"relaxation"`` rounds the
        linear relaxation (fast, with a proven bound of the optimum); ``"exact"``
        adds the mixed-integer program over the cases near the relaxation's margin
        (the others fixed by reduced costs), which proves the optimum (slow when
        many cases are near the margin); ``"auto"`` does so only when they are few,
        within a node limit. Capacities alone are always solved exactly. Another
        method than ``"auto"`` without ``capacity`` or ``budget`` is refused.
    time_limit : float, default=None
        Seconds each mixed-integer program of a budget may take; None: no limit
        with ``"exact"``, a limit of 2,000 nodes with ``"auto"``. Refused without
        ``capacity`` or ``budget``.
    n_jobs : int, default=None
        Threads that share the chunks of a categorical matrix with additive costs (the
        common case: levels, constant costs and cost columns): None means 1 (unless a
        ``joblib.parallel_config`` context says otherwise), -1 every core. Each
        thread runs the chunk kernel's NumPy vector passes on its chunks (the
        compiled per-case loop instead under ``kernels="compiled"``, see
        :func:`dtdecide.set_config`; it was not faster). The result is the same bit
        for bit whatever ``n_jobs`` and whichever kernels. Interval and case-specific
        matrices, ``capacity`` and ``budget`` decide on one thread.

    Returns
    -------
    DecisionResult
        ``cases`` (DataFrame aligned with the input index) and ``summary`` (Series)
        with, over cases with non-missing costs and weighted by frequency:
        ``n_cases``, ``n_missing``, ``frequency``, ``total_expected_<w>`` and
        ``average_expected_<w>`` (``<w>`` is ``profit`` or ``loss``); with a known
        target ``total_<w>``, ``average_<w>``, ``total_best_<w>``,
        ``average_best_<w>``; with a revenue matrix ``total_investment`` and, with
        the target, ``roi``; with explicit priors and a categorical target
        ``adjusted_total_<w>`` and ``adjusted_average_<w>`` (Paw weights; NaN when a
        level with a positive prior has zero frequency); with a categorical target
        ``misclassification_rate`` (class = largest posterior, over all cases, never
        prior-adjusted); with a threshold ``do_nothing_frequency``. With ``capacity``
        or ``budget``: ``unlimited_total_expected_<w>`` (without the limits),
        ``used[<d>]`` (cases, or spend, of each limited decision) and
        ``shadow_price[<d>]`` (the expected profit of one more unit of its limit, when
        the allocation is proven optimal), ``allocation_gap`` (at most this much
        expected profit below the optimum; 0 when proven optimal) and, with a budget,
        ``lp_dual_price[<d>]`` (the linear relaxation's marginal profit per unit of
        each limit, when it was solved). The result's ``allocation`` holds them as a
        Bunch (see :func:`allocate`).

    See Also
    --------
    DecisionMatrix : The decision specification.
    decide_arrays : The array kernel behind the decisions.
    mean_costs : Training cost columns as constants for ``decision_costs``.

    Notes
    -----
    Cases are processed in chunks of ``chunk_size`` rows, so the memory used beyond
    the returned table stays bounded. Categorical matrices with additive costs take a
    fast kernel (one matrix product per chunk, costs subtracted in place, no
    per-case consequence array); it gives the same results as the general one used
    for interval and case-specific matrices. A target given as a pandas
    ``Categorical`` (or a Series of category dtype) is encoded through its category
    codes, which is faster than string labels.

    Examples
    --------
    >>> import pandas as pd
    >>> from dtdecide import DecisionMatrix, decide
    >>> m = DecisionMatrix({"mail": [20, 0], "skip": [0, 0]}, levels=["yes", "no"],
    ...                    kind="revenue", costs={"mail": "cost"})
    >>> post = pd.DataFrame({"yes": [0.10, 0.02], "no": [0.90, 0.98]})
    >>> res = decide(post, m, y=["yes", "no"], costs=pd.DataFrame({"cost": [1.0, 1.0]}))
    >>> res.cases[["D_target", "EP_target", "CP_target", "ROI_target"]]
      D_target  EP_target  CP_target  ROI_target
    0     mail        1.0       19.0        19.0
    1     skip        0.0        0.0         NaN
    >>> round(float(res.summary["average_profit"]), 6)
    9.5

    Deciding with a planned cost of 3 per letter while the letters actually cost 1:

    >>> res = decide(post, m, y=["yes", "no"], costs=pd.DataFrame({"cost": [1.0, 1.0]}),
    ...              decision_costs={"cost": 1.5})
    >>> res.cases[["D_target", "EP_target", "CP_target", "IC_target"]]
      D_target  EP_target  CP_target  IC_target
    0     mail        0.5       19.0        1.0
    1     skip        0.0        0.0        0.0

    Only one letter may be sent: it goes to the case with the larger expected gain.

    >>> res = decide(post, m, costs=pd.DataFrame({"cost": [0.5, 0.5]}), capacity={"mail": 1})
    >>> res.cases["D_target"].tolist(), round(float(res.summary["shadow_price[mail]"]), 6)
    (['mail', 'skip'], 0.0)
    """
    limited = capacity is not None or budget is not None
    n_threads, time_limit = _check_arguments(matrix, target_name, n_jobs, method,
                                             time_limit, limited=limited)
    P, index = _posterior_array(posteriors_or_predictions, matrix)
    n = P.shape[0]
    given_index = index  # only a pandas input index is checked against y/costs/weights
    if index is None:
        index = pd.RangeIndex(n)
    chunk = _chunk_rows(chunk_size)
    _check_threshold(threshold, do_nothing, matrix)
    rho = _training_priors(train_priors, matrix)
    fast = _FAST_KERNEL and not matrix.is_interval and not matrix.is_case_specific
    t_all, t_enc = _encode_y(y, matrix, n, given_index, fast)
    F = check_sample_weight(sample_weight, n, index=given_index, reference=_P)
    resolved = _resolve_costs(matrix, costs, decision_costs, n, index, given_index, fast)
    if limited:
        return _decide_limited(P, matrix, rho=rho, t_all=t_all, t_enc=t_enc, costs=costs,
                               F=F, capacity=capacity, budget=budget, index=index,
                               target_name=target_name, method=method,
                               time_limit=time_limit, threshold=threshold,
                               decision_costs=decision_costs)
    figures = _decide_cases(P, matrix, resolved, t_all, t_enc, rho, threshold, chunk, F,
                            n_threads, fast)
    # the cases table and its summary (one BLAS thread for large runs, as above)
    with _one_blas_thread(n > chunk):
        return build_decision_result(matrix, **figures, sample_weight=F,
                                     threshold=threshold, do_nothing=do_nothing,
                                     index=index, target_name=target_name)


def mean_costs(costs, *, sample_weight=None):
    """Frequency-weighted average of each cost column: constants to decide with.

    Case costs are often known only after the action (the calls a client actually
    needed). A model that decides case by case should then decide with what could be
    planned, the average training cost, and be judged on the actual costs, as a
    profit tree is: ``decide(post, matrix, costs=actual,
    decision_costs=mean_costs(train_costs))``.

    Parameters
    ----------
    costs : DataFrame or dict of array-like
        Cost columns of the training cases (one value per case). Missing values (NaN)
        are left out of each column's average, as cases with missing costs are left
        out of the summaries.
    sample_weight : array-like of shape (n_samples,), default=None
        Frequencies ``F(i)`` of the cases (non-negative).

    Returns
    -------
    dict
        ``{column: sum_i F(i) cost(i) / sum_i F(i)}`` over the cases whose cost is
        known, as floats, in the order of the columns; pass it as ``decision_costs``.

    See Also
    --------
    decide : Takes the result as ``decision_costs``.

    Examples
    --------
    >>> import pandas as pd
    >>> from dtdecide.decision import mean_costs
    >>> mean_costs(pd.DataFrame({"call_cost": [1.0, 3.0, None], "mail_cost": [0.5, 0.5, 2.0]}))
    {'call_cost': 2.0, 'mail_cost': 1.0}
    >>> mean_costs({"call_cost": [1.0, 3.0]}, sample_weight=[3, 1])
    {'call_cost': 1.5}
    """
    if isinstance(costs, pd.DataFrame):
        if costs.columns.has_duplicates:
            raise ValueError(
                "costs must not repeat a column name; got columns "
                f"{list(costs.columns)!r}"
            )
        items = [(c, costs[c]) for c in costs.columns]
    elif isinstance(costs, Mapping):
        items = list(costs.items())
    else:
        raise TypeError(
            f"costs must be a DataFrame or a dict of arrays; got {type(costs).__name__}"
        )
    if not items:
        raise ValueError("costs must hold at least one cost column; got none")
    out = {}
    F = None
    n = None
    for name, col in items:
        if isinstance(col, (pd.Series, pd.Index)):
            col = col.to_numpy()
        arr = np.asarray(col)
        if arr.ndim != 1:
            raise ValueError(
                f"costs column {name!r} must be 1-D (one value per case); got shape "
                f"{arr.shape}"
            )
        arr = numeric_cost_column(arr, name, allow_bool=False)
        if n is None:
            n = arr.size
            F = check_sample_weight(sample_weight, n)
        elif arr.size != n:
            raise ValueError(
                f"costs columns must have the same length; column {name!r} has {arr.size} "
                f"values, the first {n}"
            )
        if np.isinf(arr).any():
            raise ValueError(f"costs column {name!r} must not contain infinite values")
        known = ~np.isnan(arr)
        w = known.astype(_FLOAT) if F is None else np.where(known, F, 0.0)
        total_w = float(w.sum())
        if total_w <= 0:
            raise ValueError(
                f"costs column {name!r} has no known value with a positive frequency; "
                "its average is undefined"
            )
        out[name] = float(np.dot(w, np.where(known, arr, 0.0)) / total_w)
    return out
