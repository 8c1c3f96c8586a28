"""Slow brute-force twin of the exact search: every depth-<=2 (3) tree, pure Python.

Leaves are scored through the fitted tree's own leaf rule on a one-node decision
statistics object (no channels, no prefix sums), so the twin checks the vectorised search
against the definition of the objective.
"""

import itertools

import numpy as np

from dtdecide.tree._structure import _leaf


class Twin:
    def __init__(self, Xb, binner, *, matrix, cons, target, F, n_classes, cost_columns,
                 msl, mss, is_classifier, all_subsets=False):
        self.Xb, self.binner = Xb, binner
        self.matrix, self.cons, self.target, self.F = matrix, cons, target, F
        self.n_classes, self.cost_columns = n_classes, cost_columns
        self.msl, self.mss, self.is_classifier = msl, mss, is_classifier
        self.all_subsets = all_subsets
        self.priors = None
        if matrix is not None and not matrix.is_interval and matrix.priors is not None:
            self.priors = np.asarray(matrix.priors, dtype=float)
        self.cache = {}

    # ---------------------------------------------------------------- leaves
    def leaf(self, rows):
        key = rows.tobytes()
        if key in self.cache:
            return self.cache[key]
        F = self.F[rows]
        m = self.matrix
        if m is None or m.n_decisions < 2:
            if self.is_classifier:
                counts = np.bincount(self.target[rows], weights=F, minlength=self.n_classes)
                v = float(counts.max())
            else:
                y = self.target[rows]
                mean = np.average(y, weights=F) if F.sum() > 0 else 0.0
                v = -float(np.sum(F * (y - mean) ** 2))
        else:
            # one "tree" whose root is the training root (for prior proportions) and
            # whose only other node is this leaf
            n = self.F.shape[0]
            node_of_row = np.zeros(n, dtype=np.intp)
            node_of_row[rows] = 1
            stats = _leaf.compute_decision_stats(
                node_of_row, np.array([-1, 0]), np.array([0, 1]), cons=self.cons,
                sample_weight=self.F,
                t_idx=None if m.is_interval else self.target,
                y=self.target if m.is_interval else None, rows=m.rows,
                decisions=m.decisions, cost_columns=self.cost_columns,
            )
            # node 0 now holds every row (propagated), node 1 the leaf
            fields = _leaf.node_decisions(stats, m, priors=self.priors)
            d = int(fields["node_decision"][1])
            if m.is_interval:
                q = self.cons.take(rows).q_actual(self.target[rows])
                v = float(np.sum(F * q[:, d]))
            else:
                t = self.target[rows]
                q = self.cons.take(rows).q_actual(t)[:, d]
                w = F
                if self.priors is not None:
                    freq = np.bincount(self.target, weights=self.F, minlength=m.n_levels)
                    pri = self.priors / self.priors.sum()
                    paw = np.divide(pri * self.F.sum(), freq, out=np.zeros_like(pri),
                                    where=freq > 0)
                    w = F * paw[t]
                v = float(np.sum(w * q))
        self.cache[key] = v
        return v

    # ---------------------------------------------------------------- splits
    def splits(self, rows):
        """Every candidate partition (left rows, right rows) of ``rows``."""
        b = self.binner
        miss = b.missing_bin_idx_
        out = []
        for j in range(self.Xb.shape[1]):
            col = self.Xb[rows, j].astype(int)
            is_m = col == miss
            nb = int(b.n_bins_[j])
            if b.is_categorical_[j]:
                present = sorted(set(col[~is_m].tolist()))
                if self.all_subsets:
                    sets = [set(c) for r in range(1, len(present) + 1)
                            for c in itertools.combinations(present, r)]
                else:
                    sets = self._ordered_prefixes(rows, col, present)
                for s in sets:
                    go = np.isin(col, list(s)) & ~is_m
                    for ml in (False, True):
                        out.append(go | (is_m & ml))
            else:
                for t in range(nb):
                    go = (col <= t) & ~is_m
                    for ml in (False, True):
                        out.append(go | (is_m & ml))
        res = []
        for go in out:
            L, R = rows[go], rows[~go]
            if len(L) < self.msl or len(R) < self.msl:
                continue
            if not (self.F[L].sum() > 0 and self.F[R].sum() > 0):
                continue
            res.append((L, R))
        return res

    def _ordered_prefixes(self, rows, col, present):
        raise NotImplementedError("use all_subsets=True for categorical inputs")

    # ---------------------------------------------------------------- trees
    def best(self, rows, depth):
        v = self.leaf(rows)
        if depth == 0 or len(rows) < self.mss:
            return v
        for L, R in self.splits(rows):
            if depth == 1:
                s = self.leaf(L) + self.leaf(R)
            else:
                s = self.best(L, depth - 1) + self.best(R, depth - 1)
            v = max(v, s)
        return v
