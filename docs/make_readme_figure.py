"""Draw the picture shown in README.md: the pruned profit tree of the bank demo.

Run from the repository root: ``python docs/make_readme_figure.py``. It writes
``docs/_static/bank_tree.png`` and ``docs/_static/bank_pruning.png`` (the same steps as
``dtdecide demo``: grow on the training part, keep the subtree with the best validation
average profit), and ``docs/_static/bank_tree_html.png``, a screenshot of the tree's HTML
view (:func:`dtdecide.export.export_html`) taken with headless Chromium when it is
installed.
"""

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from dtdecide import ProfitTreeClassifier, PruningStudy, PruningStudyDisplay  # noqa: E402
from dtdecide.datasets import load_bank_marketing  # noqa: E402
from dtdecide.export import export_html, plot_tree  # noqa: E402

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

    screenshot_html(best, valid)


def _chromium(args, tmp):
    cmd = [shutil.which("chromium"), "--headless", "--no-sandbox", "--disable-gpu",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--no-first-run", "--hide-scrollbars", f"--user-data-dir={tmp}/profile", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=True).stdout


def screenshot_html(tree, valid, width=1150):
    """Screenshot of the HTML view of ``tree`` with validation figures (needs chromium)."""
    if shutil.which("chromium") is None:
        print("chromium not found: bank_tree_html.png not regenerated")
        return
    with tempfile.TemporaryDirectory() as tmp:
        page = export_html(tree, Path(tmp) / "tree.html", valid.data, valid.target,
                           valid.costs, title="Whom to call")
        # measure the page height at this width, then shoot the whole page
        probe = Path(tmp) / "probe.html"
        probe.write_text(page.read_text(encoding="utf-8").replace(
            "</body>", "<script>document.body.setAttribute('data-h', "
            "document.documentElement.scrollHeight)</script></body>"), encoding="utf-8")
        dom = _chromium([f"--window-size={width},100", "--dump-dom", probe.as_uri()], tmp)
        height = int(re.search(r'data-h="(\d+)"', dom).group(1))
        _chromium([f"--window-size={width},{height}",
                   f"--screenshot={STATIC / 'bank_tree_html.png'}", page.as_uri()], tmp)


if __name__ == "__main__":
    main()
