"""Plot polish of issue 13 §4: names not split at hyphens, readable log axis, legend
off the profit curve."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from dtdecide import DecisionMatrix, ProfitTreeClassifier  # noqa: E402
from dtdecide.cli import _log_leaf_axis  # noqa: E402
from dtdecide.export._common import tree_view  # noqa: E402
from dtdecide.export._plot import _node_lines, _wrap_split  # noqa: E402


def test_split_text_breaks_only_between_labels():
    text = "job in {'admin.', 'blue-collar', 'self-employed', 'house maid', 'x'}"
    lines = _wrap_split(text, 24)
    assert " ".join(lines) == text
    for label in ("'blue-collar',", "'self-employed',", "'house maid',"):
        assert any(label in line for line in lines)
    assert _wrap_split("balance <= 806.5", 5) == ["balance <= 806.5"]


def test_tree_boxes_keep_hyphenated_categories_whole():
    rng = np.random.default_rng(0)
    n = 300
    jobs = ["blue-collar", "self-employed", "admin.", "white-collar-worker"]
    X = pd.DataFrame({"job": rng.choice(jobs, n)})
    y = np.where(X["job"].isin(jobs[:2]) & (rng.random(n) < 0.8), "yes", "no")
    m = DecisionMatrix({"call": [10, -1], "skip": [0, 0]}, levels=["yes", "no"])
    tree = ProfitTreeClassifier(decision_matrix=m, max_depth=1, min_samples_leaf=5).fit(X, y)
    view = tree_view(tree)
    text = "\n".join(_node_lines(view, 0, 3))
    for job in jobs:
        short = f"'{job}'"
        assert short in text or short not in view.split_text(0)
    assert not any(line.rstrip().endswith("-") for line in text.splitlines())


def test_log_leaf_axis_has_plain_number_labels():
    fig, ax = plt.subplots()
    ax.plot([1, 3, 11, 59], [0.7, 1.1, 1.3, 1.3])
    ticks = _log_leaf_axis(ax, 59)
    fig.canvas.draw()
    labels = [t.get_text() for t in ax.get_xticklabels()]
    plt.close(fig)
    assert ticks[0] == 1 and ticks[-1] == 59 and 10 in ticks
    assert all(label.isdigit() for label in labels if label)
