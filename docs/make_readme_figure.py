"""Draw the picture shown in README.md: the pruned profit tree of the bank demo.

Run from the repository root: ``python docs/make_readme_figure.py``. It writes
``docs/_static/bank_tree.png`` and ``docs/_static/bank_pruning.png`` (the same steps as
``dtdecide demo``: grow on the training part, keep the subtree with the best validation
average profit).
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from dtdecide import ProfitTreeClassifier, PruningStudy, PruningStudyDisplay  # noqa: E402
from dtdecide.datasets import load_bank_marketing  # noqa: E402
from dtdecide.export import plot_tree  # noqa: E402

STATIC = Path(__file__).resolve().parent / "_static"


def main():
    train = load_bank_marketing(split="train")
    valid = load_bank_marketing(split="validation")
    tree = ProfitTreeClassifier(decision_matrix=train.decision_matrix, max_depth=3,
                                min_samples_leaf=200, random_state=0)
    tree.fit(train.data, train.target, costs=train.costs)
    study = PruningStudy(tree).fit(valid.data, valid.target, costs_valid=valid.costs)
    best = study.best_estimator_

    ax = plot_tree(best, digits=3)
    ax.set_title("Whom to call: a profit tree on the bank-marketing data "
                 f"({best.get_n_leaves()} leaves, pruned on validation profit)")
    ax.figure.savefig(STATIC / "bank_tree.png", dpi=90, bbox_inches="tight")
    plt.close(ax.figure)

    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    PruningStudyDisplay.from_study(study, ax=ax)
    fig.tight_layout()
    fig.savefig(STATIC / "bank_pruning.png", dpi=90)
    plt.close(fig)


if __name__ == "__main__":
    main()
