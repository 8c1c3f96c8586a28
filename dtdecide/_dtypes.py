"""The numpy dtypes of dtdecide's arrays, defined once, each with its reason.

Every module takes its dtypes from here (as scikit-learn's histogram gradient boosting
takes them from ``common.pyx``). This module imports nothing of the package, so every
layer can use it. Changing a dtype changes memory, speed and, for the stored tree arrays,
the saved model files: read the reason first.
"""

import numpy as np

__all__ = [
    "X_DTYPE",
    "X_BINNED_DTYPE_SMALL",
    "X_BINNED_DTYPE_LARGE",
    "ROW_INDEX_DTYPE",
    "HIST_DTYPE",
    "HIST_DTYPE_SMALL_COUNTS",
    "BIN_COUNT_DTYPE",
    "NODE_DTYPE",
    "THRESHOLD_DTYPE",
    "COUNT_DTYPE",
    "STAT_DTYPE",
    "FLAG_DTYPE",
    "FLOAT_DTYPE",
    "code_dtype",
]

# ----------------------------------------------------------------------- inputs
# Numbers the user passes and everything computed from them case by case (posteriors,
# money amounts, costs, weights, expected and realised profits): float64, the precision
# users give. Decisions compare expected profits and break ties by order, so a narrower
# type would change decisions.
FLOAT_DTYPE = np.float64

# The encoded feature matrix: float64 so that NaN can mark a missing value and a raw
# numeric threshold compares exactly with the values the user passes when scoring.
X_DTYPE = np.float64

# ---------------------------------------------------------------------- growing
# Binned values: one byte per cell when every feature fits in 255 bins + missing, which
# is the default and keeps the histogram gathers cache-friendly; two bytes for features
# with many categories (65535 bins, the missing bin included).
X_BINNED_DTYPE_SMALL = np.uint8
X_BINNED_DTYPE_LARGE = np.uint16

# Row ids and node slots of the rows still growing: int32 halves the largest per-level
# arrays; exact below 2**31 rows, the limit grow_tree checks.
ROW_INDEX_DTYPE = np.int32

# Histogram sums of weights and of y: float64 keeps counts exact up to 2**53 and makes
# "parent - smaller child" exact for integer counts.
HIST_DTYPE = np.float64
# Unweighted class counts below 2**24 rows are exact in float32, which halves the memory
# and the memory traffic of the histograms (the split search computes in float64).
HIST_DTYPE_SMALL_COUNTS = np.float32

# Row counts per histogram bin: working memory that grows with nodes x features x bins,
# so int32 (half of int64); exact below 2**31 rows, grow_tree's limit.
BIN_COUNT_DTYPE = np.int32

# ------------------------------------------------------- the fitted tree's arrays
# These are kept in every fitted model and written to model files: one node is a few
# dozen bytes, so exactness and native indexing matter, not size.

# Node ids index numpy arrays: intp is the native index type (no conversion on fancy
# indexing) and -1 is free to mean "no node".
NODE_DTYPE = np.intp
# Thresholds are raw input values (midpoints between observed float64 values), so they
# keep the input precision: routing `x <= threshold` must reproduce training exactly.
THRESHOLD_DTYPE = np.float64
# Training rows per node (and per node of a growing level): int64, exact for any count a
# tree is refitted or merged with later, whatever the limits of the growing kernels.
COUNT_DTYPE = np.int64
# Sums of case weights, class counts and money amounts per node: float64 so that sums
# stay exact for integer counts up to 2**53 and subtracting sibling statistics loses
# nothing.
STAT_DTYPE = np.float64
# Flags (categorical split, missing direction, category membership): one byte each.
FLAG_DTYPE = np.bool_


# ---------------------------------------------------------------- per-case codes
# Codes of target levels and of decisions, one per case (-1: unknown or missing): int8
# when the codes fit in one byte (fewer than 127), an eighth of intp for arrays as long
# as the data; otherwise intp, numpy's index type, as the codes index (n, levels) tables.
def code_dtype(n_codes):
    """The dtype of per-case codes ``-1 .. n_codes - 1``: int8 when they fit, else intp."""
    return np.int8 if n_codes < 127 else np.intp
