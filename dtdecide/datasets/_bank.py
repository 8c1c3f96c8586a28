"""The bundled bank direct-marketing data and its contact-or-not decision matrix."""

from functools import lru_cache
from importlib import resources

import numpy as np
import pandas as pd
from sklearn.utils import Bunch

# Columns of the raw file, grouped by how the package treats them.
# Model inputs: client attributes and the history of earlier campaigns, all known before the
# bank picks up the phone for the current campaign.
FEATURE_NAMES = (
    "age",
    "job",
    "marital",
    "education",
    "default",
    "balance",
    "housing",
    "loan",
    "pdays",
    "previous",
    "poutcome",
)
# Columns describing the current campaign's calls: recorded during or after the calls, so
# they leak the outcome (kept in ``frame``, never in ``data``).
LEAKING_COLUMNS = ("contact", "day", "month", "duration", "campaign")
TARGET_NAME = "y"
COST_NAME = "contact_cost"

# Categories in a fixed, documented order (the file's labels; "unknown" last where present).
CATEGORIES = {
    "job": [
        "admin.",
        "blue-collar",
        "entrepreneur",
        "housemaid",
        "management",
        "retired",
        "self-employed",
        "services",
        "student",
        "technician",
        "unemployed",
        "unknown",
    ],
    "marital": ["divorced", "married", "single"],
    "education": ["primary", "secondary", "tertiary", "unknown"],
    "default": ["no", "yes"],
    "housing": ["no", "yes"],
    "loan": ["no", "yes"],
    "contact": ["cellular", "telephone", "unknown"],
    "month": ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"],
    "poutcome": ["failure", "other", "success", "unknown"],
    "y": ["no", "yes"],
}

#: Revenue of one subscription (a term deposit), in the same unit as one call.
REVENUE_PER_SUBSCRIBER = 30.0
#: Cost of one call of the current campaign.
COST_PER_CALL = 1.0

#: Shares of each class sent to train, validation and test.
SPLIT_SHARES = {"train": 0.50, "validation": 0.25, "test": 0.25}

_DATA_FILE = "bank-full.csv.gz"


def _bank_description():
    return f"""\
Bank marketing data (bank-full)
===============================

45,211 telephone contacts of a Portuguese bank's direct-marketing campaigns for a term
deposit (May 2008 to November 2010). The target ``y`` is "yes" when the client subscribed.
11.7 % of the clients said yes.

Source: S. Moro, P. Cortez and P. Rita, "A Data-Driven Approach to Predict the Success of
Bank Telemarketing", Decision Support Systems 62:22-31, 2014. Distributed by the UCI Machine
Learning Repository under the Creative Commons Attribution 4.0 licence (CC BY 4.0). The
file is bundled unchanged as ``dtdecide/datasets/data/bank-full.csv.gz``.

Model inputs (``data``, ``feature_names``)
------------------------------------------
Only what the bank knows before it calls the client:

- age (int), balance (int, average yearly balance in euros, may be negative)
- job, marital, education (category; "unknown" is a label of its own)
- default, housing, loan (category with categories ["no", "yes"]: credit in default,
  housing loan, personal loan)
- pdays (int): days since the client was last contacted by an earlier campaign,
  -1 when the client was never contacted before (kept as -1, not made missing)
- previous (int): contacts before this campaign
- poutcome (category): outcome of the previous campaign ("unknown" when there was none)

Left out of the inputs (kept in ``frame``): ``contact`` (channel of the current calls),
``day`` and ``month`` (date of the last call), ``duration`` (length of the last call) and
``campaign`` (number of calls in this campaign). They describe the current campaign's calls
and are only known once the calls happened: the share of subscribers rises from under 1 %
among the shortest fifth of last calls (``duration``) to a third among the longest fifth,
and calling stops after a "yes", so ``campaign`` is shaped by the outcome too. A model that uses them
scores well on paper and cannot be used to decide whom to call.

Categorical columns have the dtype ``category``; yes/no columns (default, housing, loan and
the target y) are categories ["no", "yes"] rather than booleans, so that every model input
is either numeric or categorical and the target's levels are the decision matrix's rows.

Decision matrix (``decision_matrix``) and costs (``costs``)
-----------------------------------------------------------
Decisions: "contact" and "do nothing". A revenue matrix (rows are the target levels):

    level   contact   do nothing
    no         0.0         0.0
    yes       {REVENUE_PER_SUBSCRIBER:4.1f}         0.0

plus a case-level cost variable ``{COST_NAME}`` for "contact":

    {COST_NAME} = {COST_PER_CALL:g} * campaign      (one unit per call made in this campaign)

so a contacted subscriber brings {REVENUE_PER_SUBSCRIBER:g} minus the calls it took, and a
contacted non-subscriber costs its calls. Revenue is a constant per subscriber so that the
consequences have the additive form Revenue(t, d) - Cost(i, d) that decision trees and the
investment cost (IC) and return on investment (ROI) are built on.

The contact cost is the cost of the calls actually made, known only after the campaign.
That is the point of a case-level cost: a profit tree decides each leaf with the average
cost of its training cases, and a new case's own cost is not used for its decision, only
for its IC, ROI and computed profit. A model that decides case by case (``decide`` with
a scikit-learn model's posteriors) should not be given the actual cost of a new client: it
would skip, with hindsight, the clients who needed many calls. Give it an expected cost
instead, for instance the training average of ``contact_cost``.

Split (``split``)
-----------------
A stratified split, 50 % train, 25 % validation, 25 % test within each class of ``y``.
The order within a class comes from an integer hash (splitmix64) of the row number and
``random_state``, not from a random number generator, so the split for a given
``random_state`` is the same on every machine and every version.
"""


@lru_cache(maxsize=1)
def _read_raw():
    with resources.files("dtdecide.datasets").joinpath("data", _DATA_FILE).open("rb") as fh:
        raw = pd.read_csv(fh, sep=";", compression="gzip")
    return raw


def _as_typed_frame(raw):
    frame = raw.copy()
    for column, categories in CATEGORIES.items():
        values = frame[column].astype(object)
        unexpected = set(values.unique()) - set(categories)
        if unexpected:  # the bundled file is fixed; this guards against a corrupted copy
            raise ValueError(
                f"bundled data column {column!r} has unexpected labels {sorted(unexpected)}"
            )
        frame[column] = pd.Categorical(values, categories=categories)
    for column in ("age", "balance", "day", "duration", "campaign", "pdays", "previous"):
        frame[column] = frame[column].astype("int64")
    frame[COST_NAME] = COST_PER_CALL * frame["campaign"].astype("float64")
    return frame


@lru_cache(maxsize=1)
def _typed_frame():
    return _as_typed_frame(_read_raw())


@lru_cache(maxsize=4)
def _cached_split_labels(random_state):
    labels = split_labels(_typed_frame()[TARGET_NAME], random_state=random_state)
    labels.setflags(write=False)
    return labels


def _splitmix64(values):
    """Vectorised splitmix64 finaliser on uint64 values (wraps modulo 2**64)."""
    z = values.astype(np.uint64)
    with np.errstate(over="ignore"):
        z = z + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return z


def _check_split_seed(random_state):
    if isinstance(random_state, (bool, np.bool_)) or not isinstance(
        random_state, (int, np.integer)
    ):
        raise TypeError(
            f"random_state must be a non-negative int (the split is hash-based); "
            f"got {type(random_state).__name__}"
        )
    if random_state < 0:
        raise ValueError(f"random_state must be a non-negative int; got {random_state}")
    return int(random_state)


def split_labels(y, random_state=0):
    """Stratified train/validation/test labels from a hash of the row number.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Class labels; each class is split 50/25/25 on its own.
    random_state : int, default=0
        Non-negative integer mixed into the hash; each value gives another fixed split.

    Returns
    -------
    labels : ndarray of str, shape (n_samples,)
        "train", "validation" or "test" per row.

    Examples
    --------
    >>> from dtdecide.datasets import split_labels
    >>> labels = split_labels(["a"] * 4 + ["b"] * 4)
    >>> sorted(labels[:4].tolist()), sorted(labels[4:].tolist())
    (['test', 'train', 'train', 'validation'], ['test', 'train', 'train', 'validation'])
    """
    random_state = _check_split_seed(random_state)
    y = pd.Series(np.asarray(y, dtype=object))
    if y.isna().any():
        raise ValueError("y must not contain missing labels")
    n = len(y)
    key = _splitmix64(
        np.arange(n, dtype=np.uint64) ^ _splitmix64(np.array([random_state], dtype=np.uint64))
    )
    labels = np.empty(n, dtype=object)
    for _, rows in y.groupby(y, sort=True).indices.items():
        ordered = rows[np.argsort(key[rows], kind="stable")]
        n_class = len(ordered)
        n_train = int(round(SPLIT_SHARES["train"] * n_class))
        n_valid = int(round(SPLIT_SHARES["validation"] * n_class))
        labels[ordered[:n_train]] = "train"
        labels[ordered[n_train : n_train + n_valid]] = "validation"
        labels[ordered[n_train + n_valid :]] = "test"
    return labels.astype(str)


def bank_decision_matrix():
    """The contact-or-not revenue matrix of the bank data, with its contact-cost variable.

    Rows are the levels "no" and "yes" of ``y``; decisions are "contact" and "do nothing".
    A subscriber who was contacted brings 30 (``REVENUE_PER_SUBSCRIBER``); "contact" carries the
    case-level cost variable ``contact_cost``. See :func:`load_bank_marketing` for why.

    Returns
    -------
    matrix : DecisionMatrix
        ``kind="revenue"``, ``costs={"contact": "contact_cost"}``.

    Examples
    --------
    >>> from dtdecide.datasets import bank_decision_matrix
    >>> matrix = bank_decision_matrix()
    >>> matrix.kind, matrix.decisions, matrix.cost_variables
    ('revenue', ('contact', 'do nothing'), ('contact_cost',))
    """
    from dtdecide.decision import DecisionMatrix

    return DecisionMatrix(
        [[0.0, 0.0], [REVENUE_PER_SUBSCRIBER, 0.0]],
        levels=["no", "yes"],
        decisions=["contact", "do nothing"],
        kind="revenue",
        costs={"contact": COST_NAME},
    )


def load_bank_marketing(*, as_frame=True, split=None, return_X_y=False, random_state=0):
    """Load the bundled bank direct-marketing data with its decision matrix.

    45,211 clients of a Portuguese bank, target ``y`` ("yes" = subscribed a term deposit),
    11 model inputs known before the call, a revenue matrix for the decision
    "contact" / "do nothing" and a per-client contact cost. The full description, the
    reasons for the choice of inputs and the cost formula are in the returned ``DESCR``.

    Parameters
    ----------
    as_frame : bool, default=True
        If True, ``data`` is a DataFrame (categoricals as ``category``) and ``target`` a
        categorical Series. If False, ``data`` is a float64 array whose categorical
        columns hold integer codes into ``categories[name]``, and ``target`` is an array
        of the labels "no"/"yes".
    split : {None, "train", "validation", "test"}, default=None
        Return only one part of the stratified 50/25/25 split; None returns all rows
        (and the per-row split label as ``split_labels``).
    return_X_y : bool, default=False
        If True, return ``(data, target)`` instead of a Bunch.
    random_state : int, default=0
        Selects the split. The default, 0, is the documented split used in the docs,
        notebooks and ``dtdecide demo``; the split is hash-based, so any non-negative int
        always gives the same rows.

    Returns
    -------
    bunch : Bunch
        ``frame`` (every column of the file plus ``contact_cost``, for the selected rows,
        with the original row numbers as index), ``data`` (the model inputs),
        ``target`` (``y``), ``costs`` (DataFrame with the ``contact_cost`` column, ready to
        pass as ``costs=``), ``feature_names``, ``target_name``, ``cost_names``,
        ``decision_matrix`` (see :func:`bank_decision_matrix`), ``categories``,
        ``split``, ``split_labels`` and ``DESCR``.
    (data, target) : tuple
        When ``return_X_y`` is True.

    Examples
    --------
    >>> from dtdecide.datasets import load_bank_marketing
    >>> bank = load_bank_marketing(split="train")
    >>> bank.data.shape, bank.target.value_counts().to_dict()
    ((22605, 11), {'no': 19961, 'yes': 2644})
    >>> bank.decision_matrix.decisions
    ('contact', 'do nothing')
    >>> round(float(bank.costs["contact_cost"].mean()), 2)
    2.78
    """
    if not isinstance(as_frame, (bool, np.bool_)):
        raise TypeError(f"as_frame must be a bool; got {type(as_frame).__name__}")
    if not isinstance(return_X_y, (bool, np.bool_)):
        raise TypeError(f"return_X_y must be a bool; got {type(return_X_y).__name__}")
    if split is not None and split not in SPLIT_SHARES:
        raise ValueError(
            f"split must be None, 'train', 'validation' or 'test'; got {split!r}"
        )
    frame = _typed_frame().copy()
    labels = _cached_split_labels(_check_split_seed(random_state)).copy()
    if split is not None:
        keep = labels == split
        frame = frame.loc[keep]
        labels = labels[keep]
    feature_names = list(FEATURE_NAMES)
    categories = {
        name: np.asarray(frame[name].cat.categories, dtype=object)
        for name in feature_names
        if isinstance(frame[name].dtype, pd.CategoricalDtype)
    }
    if as_frame:
        data = frame[feature_names].copy()
        target = frame[TARGET_NAME].copy()
    else:
        data = np.column_stack(
            [
                np.where(
                    frame[name].cat.codes.to_numpy() < 0,
                    np.nan,
                    frame[name].cat.codes.to_numpy(),
                ).astype(np.float64)
                if name in categories
                else frame[name].to_numpy(dtype=np.float64)
                for name in feature_names
            ]
        )
        target = frame[TARGET_NAME].to_numpy(dtype=object)
    if return_X_y:
        return data, target
    return Bunch(
        frame=frame,
        data=data,
        target=target,
        costs=frame[[COST_NAME]].copy(),
        feature_names=feature_names,
        target_name=TARGET_NAME,
        cost_names=[COST_NAME],
        decision_matrix=bank_decision_matrix(),
        categories=categories,
        split=split,
        split_labels=pd.Series(labels, index=frame.index, name="split"),
        DESCR=_bank_description(),
    )
