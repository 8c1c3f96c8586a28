"""Bundled real data sets with ready decision matrices.

The bank direct-marketing data (Moro, Cortez and Rita 2014, CC BY 4.0) with a
contact-or-not revenue matrix, a per-client contact cost and a fixed stratified
train / validation / test split.
"""

from ._bank import bank_decision_matrix, load_bank_marketing, split_labels

__all__ = ["bank_decision_matrix", "load_bank_marketing", "split_labels"]
