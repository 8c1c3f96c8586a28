"""The HTML view of a fitted tree: structure, escaping, numbers, notebook display, browser.

The browser tests load the page in headless Chromium (Debian's ``chromium`` package,
installed by ``.ci/run``) and skip when it is absent.
"""

import html.parser
import json
import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest
import sklearn

from dtdecide import DecisionMatrix, ProfitTreeClassifier, ProfitTreeRegressor
from dtdecide.datasets import load_bank_marketing
from dtdecide.export import export_html, leaf_table
from dtdecide.tree._estimator._html import _Stats, _validation, tree_html


class _Nodes(html.parser.HTMLParser):
    """Collects the attributes of every element with ``data-node`` and every tag name."""

    def __init__(self):
        super().__init__()
        self.nodes = []
        self.tags = []
        self.text = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        attrs = dict(attrs)
        if "data-node" in attrs:
            attrs["tag"] = tag
            self.nodes.append(attrs)

    def handle_data(self, data):
        self.text.append(data)


def _parse(markup):
    parser = _Nodes()
    parser.feed(markup)
    parser.close()
    return parser


def _decision_of_nodes(tree):
    return [tree.decisions_[d] for d in tree.tree_.node_decision]


def _check_nodes(tree, nodes):
    """Node elements: one per node, leaves and decisions as in the tree."""
    t = tree.tree_
    assert sorted(int(a["data-node"]) for a in nodes) == list(range(t.n_nodes))
    by_id = {int(a["data-node"]): a for a in nodes}
    leaves = np.flatnonzero(t.children_left < 0)
    assert sorted(k for k, a in by_id.items() if a["data-leaf"] == "1") == leaves.tolist()
    if tree.decisions_ is not None:
        expected = _decision_of_nodes(tree)
        assert [by_id[k]["data-decision"] for k in range(t.n_nodes)] == expected
    assert [int(by_id[k]["data-depth"]) for k in range(t.n_nodes)] == t.depth.tolist()
    # leaves are plain elements, internal nodes collapsible <details>
    assert all((a["tag"] == "div") == (a["data-leaf"] == "1") for a in nodes)
    assert all(a["tag"] in ("div", "details") for a in nodes)


@pytest.fixture(scope="module")
def bank():
    return load_bank_marketing(split="train"), load_bank_marketing(split="validation")


@pytest.fixture(scope="module")
def bank_tree(bank):
    train, _ = bank
    tree = ProfitTreeClassifier(decision_matrix=train.decision_matrix, max_depth=3,
                                min_samples_leaf=100)
    return tree.fit(train.data, train.target, costs=train.costs)


@pytest.fixture(scope="module")
def big_tree(bank):
    """A tree with more than 60 leaves."""
    train, _ = bank
    tree = ProfitTreeClassifier(decision_matrix=train.decision_matrix, max_leaf_nodes=70, max_depth=12,
                                min_samples_leaf=5)
    tree.fit(train.data, train.target, costs=train.costs)
    assert tree.get_n_leaves() > 60
    return tree


def test_page_nodes_match_tree(bank_tree, tmp_path):
    page = export_html(bank_tree, tmp_path / "tree.html").read_text(encoding="utf-8")
    parsed = _parse(page)
    _check_nodes(bank_tree, parsed.nodes)
    assert page.startswith("<!DOCTYPE html>")
    # the legend names every decision with its colour and leaf count
    leaf_decisions = pd.Series(
        [bank_tree.decisions_[d] for d in bank_tree.tree_.node_decision[bank_tree.tree_.children_left < 0]]
    ).value_counts()
    for d in bank_tree.decisions_:
        assert f"{d} ({int(leaf_decisions.get(d, 0))} leaves)" in page


def test_page_is_self_contained(bank_tree, tmp_path):
    page = export_html(bank_tree, tmp_path / "tree.html").read_text(encoding="utf-8")
    parsed = _parse(page)
    assert "link" not in parsed.tags and "img" not in parsed.tags and "iframe" not in parsed.tags
    assert not re.search(r"https?://|src=|url\(|@import", page)
    assert parsed.tags.count("script") == 1 and parsed.tags.count("style") == 2


def test_big_tree_starts_open_and_has_every_node(big_tree):
    parsed = _parse(tree_html(big_tree))
    _check_nodes(big_tree, parsed.nodes)
    details = [a for a in parsed.nodes if a["tag"] == "details"]
    assert all("open" in a for a in details)
    # past 100 leaves only the first levels start open
    shallow = _parse(tree_html(big_tree, open_depth=2))
    assert all(("open" in a) == (int(a["data-depth"]) < 2)
               for a in shallow.nodes if a["tag"] == "details")


def test_edges_show_split_conditions():
    X = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, np.nan, 6.0, 7.0, 8.0] * 5,
                      "c": pd.Categorical(["a", "b", "a", "b", "c", "c", "a", "b"] * 5)})
    y = np.array(["no", "no", "no", "yes", "yes", "yes", "no", "yes"] * 5)
    m = DecisionMatrix({"call": [10, -1], "skip": [0, 0]}, levels=["yes", "no"])
    tree = ProfitTreeClassifier(decision_matrix=m, max_depth=3, min_samples_leaf=2).fit(X, y)
    page = tree_html(tree)
    t = tree.tree_
    text = "".join(_parse(page).text)
    for node in np.flatnonzero(t.children_left >= 0):
        j = int(t.feature[node])
        if tree.is_categorical_[j]:
            assert "c in {" in text
        else:
            thr = float(t.threshold[node])
            thr_text = str(int(thr)) if thr.is_integer() else format(thr, ".6g")
            assert f"x \u2264 {thr_text}" in text and f"x > {thr_text}" in text
    # the branch that takes missing values says so
    assert "or missing" in text


def test_labels_are_escaped():
    evil = "<script>alert(1)</script>"
    X = pd.DataFrame({
        "<b>x</b>": np.arange(40, dtype=float),
        "c": pd.Categorical([evil, "a&b", '"q"', "o'k"] * 10),
    })
    y = np.array(["<i>yes</i>", "no"] * 20)
    y[::3] = "<i>yes</i>"
    m = DecisionMatrix({"<em>call</em>": [10, -1], "skip": [0, 0]}, levels=["<i>yes</i>", "no"])
    tree = ProfitTreeClassifier(decision_matrix=m, max_depth=3, min_samples_leaf=2).fit(X, y)
    assert tree.is_categorical_[1] and tree.get_n_leaves() > 2
    assert any(tree.is_categorical_[f] for f in tree.tree_.feature[tree.tree_.feature >= 0])
    page = tree_html(tree, title="<h1>t</h1>")
    parsed = _parse(page)
    assert parsed.tags.count("script") == 1  # only the view's own script
    assert not {"b", "i", "em", "h1"} & set(parsed.tags)
    text = "".join(parsed.text)
    assert evil in text and "<i>yes</i>" in text and "<b>x</b>" in text and "a&b" in text
    assert "<em>call</em>" in text and "<h1>t</h1>" in text
    decisions = {a["data-decision"] for a in parsed.nodes}  # attribute values unescaped
    assert decisions <= {"<em>call</em>", "skip"}
    _check_nodes(tree, parsed.nodes)


def test_regressor_with_and_without_matrix():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x": rng.uniform(0, 10, 300)})
    y = X["x"].to_numpy() * 3 + rng.normal(0, 1, 300)
    plain = ProfitTreeRegressor(max_depth=3).fit(X, y)
    parsed = _parse(tree_html(plain))
    _check_nodes(plain, parsed.nodes)
    assert {a["data-decision"] for a in parsed.nodes} == {""}
    assert "mean" in "".join(parsed.text)
    m = DecisionMatrix({"buy": [-20.0, 40.0], "wait": [0.0, 0.0]}, knots=[0.0, 30.0],
                       kind="profit")
    tree = ProfitTreeRegressor(decision_matrix=m, max_depth=3).fit(X, y)
    parsed = _parse(tree_html(tree, X, y))
    _check_nodes(tree, parsed.nodes)
    stats = _Stats(tree)
    valid = _validation(tree, stats, X, y, None, None)
    leaves = tree.apply(X)
    for node in np.unique(leaves):
        assert valid["mean"][node] == pytest.approx(y[leaves == node].mean())
    res = tree.decide(X, y)
    assert valid["profit"][0] == pytest.approx(res.summary["average_profit"])


def test_loss_matrix_prints_expected_loss():
    X = pd.DataFrame({"x": np.arange(60, dtype=float)})
    y = np.where(np.arange(60) % 3 == 0, "bad", "good")
    y[40:] = "bad"
    m = DecisionMatrix({"accept": [5.0, 0.0], "reject": [0.0, 1.0]}, levels=["bad", "good"],
                       kind="loss")
    tree = ProfitTreeClassifier(decision_matrix=m, max_depth=2, min_samples_leaf=5).fit(X, y)
    text = "".join(_parse(tree_html(tree, X, y)).text)
    assert "EL " in text and "EP " not in text and "loss" in text
    stats = _Stats(tree)
    d = tree.tree_.node_decision[0]
    assert stats.expected[0, d] == pytest.approx(-tree.tree_.node_expected[0, d])


def test_validation_figures_agree_with_leaf_table_and_decide(bank_tree, bank):
    _, valid = bank
    costs = valid.costs.copy()
    costs.iloc[::40, 0] = np.nan  # some unknown costs: left out of profits, as in decide
    stats = _Stats(bank_tree)
    fig = _validation(bank_tree, stats, valid.data, valid.target, costs, None)
    table = leaf_table(bank_tree, valid.data, valid.target, costs=costs).set_index("leaf")
    leaves = table.index.to_numpy()
    np.testing.assert_array_equal(fig["n"][leaves], table["valid_n"].to_numpy())
    np.testing.assert_allclose(fig["profit"][leaves], table["valid_average_profit"].to_numpy())
    for k, cls in enumerate(bank_tree.classes_):
        np.testing.assert_allclose(fig["shares"][leaves, k], table[f"valid_post_{cls}"].to_numpy())
    summary = bank_tree.decide(valid.data, valid.target, costs=costs).summary
    assert fig["n"][0] == len(valid.data)
    assert fig["profit"][0] == pytest.approx(summary["average_profit"])
    # an internal node holds its subtree's cases
    t = bank_tree.tree_
    for node in np.flatnonzero(t.children_left >= 0):
        assert fig["n"][node] == fig["n"][t.children_left[node]] + fig["n"][t.children_right[node]]
    page = tree_html(bank_tree, valid.data, valid.target, costs)
    assert page.count('class="dtd-valid"') == t.n_nodes


def test_notebook_display_fitted_and_unfitted(bank_tree):
    unfitted = ProfitTreeClassifier(max_depth=2)
    bundle = unfitted._repr_mimebundle_()
    assert "data-node" not in bundle["text/html"]
    assert "ProfitTreeClassifier" in bundle["text/html"]
    assert "data-node" not in unfitted._repr_html_()
    bundle = bank_tree._repr_mimebundle_()
    assert bundle["text/plain"] == repr(bank_tree)
    _check_nodes(bank_tree, _parse(bundle["text/html"]).nodes)
    assert 'class="dtd-params"' in bundle["text/html"]  # sklearn's parameters, folded
    _check_nodes(bank_tree, _parse(bank_tree._repr_html_()).nodes)
    # two views on one page never share an element id
    ids = re.findall(r'id="(dtd-view-\d+)"', bank_tree._repr_html_() + bank_tree._repr_html_())
    assert len(set(ids)) == 2
    # display="text": no HTML at all, as sklearn does
    with sklearn.config_context(display="text"):
        assert "text/html" not in bank_tree._repr_mimebundle_()
        assert not hasattr(bank_tree, "_repr_html_")
        assert not hasattr(unfitted, "_repr_html_")


def test_bad_input(bank_tree, tmp_path):
    with pytest.raises(ValueError, match="fit"):
        export_html(ProfitTreeClassifier(), tmp_path / "a.html")
    with pytest.raises(TypeError, match="estimator"):
        export_html(object(), tmp_path / "a.html")
    with pytest.raises(TypeError, match="path"):
        export_html(bank_tree, 3)
    with pytest.raises(ValueError, match="X_valid"):
        export_html(bank_tree, tmp_path / "a.html", y_valid=["no"])
    with pytest.raises(ValueError, match="y_valid"):
        export_html(bank_tree, tmp_path / "a.html", X_valid=load_bank_marketing(
            split="validation").data.head(5), y_valid=["no"] * 4)
    # the package's rule for per-case inputs: a pandas index other than X_valid's is
    # refused (never paired by position), weights are checked as everywhere
    X5 = load_bank_marketing(split="validation").data.head(5)
    y5 = pd.Series(["no"] * 5, index=X5.index + 1000)
    with pytest.raises(ValueError, match="y_valid.*index"):
        export_html(bank_tree, tmp_path / "a.html", X_valid=X5, y_valid=y5)
    with pytest.raises(ValueError, match="sample_weight_valid.*index"):
        export_html(bank_tree, tmp_path / "a.html", X_valid=X5, y_valid=["no"] * 5,
                    sample_weight_valid=pd.Series(np.ones(5), index=X5.index + 1000))
    with pytest.raises(ValueError, match="sample_weight_valid must be non-negative"):
        export_html(bank_tree, tmp_path / "a.html", X_valid=X5, y_valid=["no"] * 5,
                    sample_weight_valid=[1, 1, -1, 1, 1])


# ------------------------------------------------------------------------ browser
def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


CHROMIUM = _chromium()
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium not installed")

# Runs after the view's own script: exercises the buttons and records what is visible.
_HARNESS = """
<script>
(function(){
  var view = document.querySelector('.dtd-tree');
  function visible(){
    return Array.prototype.filter.call(view.querySelectorAll('[data-node]'),
      function(e){ return e.checkVisibility(); }).length;
  }
  function click(act){ view.querySelector('[data-dtd-action="' + act + '"]').click(); }
  var out = {ready: view.hasAttribute('data-dtd-ready'), initial: visible()};
  click('collapse'); out.collapsed = visible();
  click('expand'); out.expanded = visible();
  var sel = view.querySelector('select.dtd-depth');
  sel.value = '2'; sel.dispatchEvent(new Event('change')); out.depth2 = visible();
  var box = view.querySelector('.dtd-row').getBoundingClientRect();
  out.row_height = box.height;
  var pre = document.createElement('pre'); pre.id = 'dtd-test';
  pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
})();
</script>
"""


def _load_in_chromium(page_path, tmp_path):
    """DOM after load and the browser's console lines."""
    cmd = [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--no-first-run", "--disable-extensions", f"--user-data-dir={tmp_path / 'profile'}",
        "--enable-logging=stderr", "--v=0", "--window-size=1200,900", "--dump-dom",
        page_path.as_uri(),
    ]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    console = [line for line in run.stderr.splitlines() if ":CONSOLE" in line]
    return run.stdout, console


@needs_chromium
def test_chromium_renders_every_node_without_console_errors(big_tree, tmp_path):
    path = export_html(big_tree, tmp_path / "big.html")
    page = path.read_text(encoding="utf-8")
    path.write_text(page.replace("</body>", _HARNESS + "</body>"), encoding="utf-8")
    dom, console = _load_in_chromium(path, tmp_path)
    assert console == []
    parsed = _parse(dom)
    _check_nodes(big_tree, parsed.nodes)  # the rendered DOM, after the scripts ran
    result = json.loads(re.search(r'<pre id="dtd-test">(.*?)</pre>', dom, re.S).group(1))
    t = big_tree.tree_
    assert result["ready"] is True
    assert result["initial"] == t.n_nodes  # every node open and shown
    left, right = t.children_left[0], t.children_right[0]
    assert result["collapsed"] == 3  # the root and its two children
    assert result["expanded"] == t.n_nodes
    assert result["depth2"] == int(np.sum(t.depth <= 2))
    assert 10 < result["row_height"] < 60  # a readable row, not squashed
    assert left > 0 and right > 0


@needs_chromium
def test_chromium_page_with_hostile_labels(tmp_path):
    X = pd.DataFrame({"c": pd.Categorical(["<script>document.title='x'</script>", "b"] * 20),
                      "x": np.arange(40, dtype=float)})
    y = np.array(["yes", "no", "no", "no"] * 10)
    m = DecisionMatrix({"call": [10, -1], "skip": [0, 0]}, levels=["yes", "no"])
    tree = ProfitTreeClassifier(decision_matrix=m, max_depth=3, min_samples_leaf=2).fit(X, y)
    path = export_html(tree, tmp_path / "evil.html", title="<b>t</b>")
    path.write_text(path.read_text(encoding="utf-8").replace("</body>", _HARNESS + "</body>"),
                    encoding="utf-8")
    dom, console = _load_in_chromium(path, tmp_path)
    assert console == []
    assert "<title>&lt;b&gt;t&lt;/b&gt;</title>" in dom
    _check_nodes(tree, _parse(dom).nodes)

