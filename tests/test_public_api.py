"""The public surface of dtdecide: names resolve and docstrings are complete.

- every name of ``dtdecide._PUBLIC`` resolves lazily and is listed by ``dir(dtdecide)``;
- every public class and function (``dtdecide.__all__`` and the ``__all__`` of each
  subpackage), and every public method that a dtdecide class defines (estimators,
  displays, studies, the decision matrix), passes the numpydoc checks listed
  in ``REQUIRED`` (docstring present, every parameter documented and no unknown ones, in
  signature order, a Returns section on functions and methods);
- every public attribute a fitted estimator sets (``name_``) is in its Attributes section;
- every default a docstring states (``name : type, default=value``) is the signature's;
- no public docstring sends its reader to private code (``:mod:`dtdecide.x._y```): the
  API reference has no entry for it, so the reference is a dead end;
- every public class and function has an Examples section that shows an output. Methods
  have one only where it shows something the class's example does not (a method's
  example repeating the class's fixture to call one more method teaches nothing); where
  they have one, it shows an output too.

The examples themselves run in ``tests/test_examples.py``, the one runner for them.
"""

import ast
import doctest
import importlib
import inspect
import re

import pytest

import dtdecide

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
numpydoc_validate = pytest.importorskip("numpydoc.validate")

# numpydoc codes every public object must pass:
#   GL08 docstring present; PR01 every parameter documented; PR02 no unknown parameter;
#   PR03 parameters in signature order; PR04 every parameter has a type; PR07 every
#   parameter described; RT01 Returns section (functions and methods); RT03 every return
#   value described; EX01 Examples section (classes and functions only, see above).
REQUIRED = {"GL08", "PR01", "PR02", "PR03", "PR04", "PR07", "RT01", "RT03", "EX01"}

# Failures left on purpose, each with the reason. Keys: qualified name -> set of codes.
KNOWN = {}

# the subpackages whose ``__all__`` is public too (the API reference documents each,
# docs/conf.py API_SUBPACKAGES): names such as ``dtdecide.decision.allocate`` or
# ``dtdecide.policy.Rewards`` are not at the top level but are as public
SUBPACKAGES = ["decision", "tree", "export", "assess", "policy", "models", "datasets", "cli"]


def _public_objects():
    objects = {name: getattr(dtdecide, name) for name in sorted(dtdecide._PUBLIC)}
    for sub in SUBPACKAGES:
        module = importlib.import_module(f"dtdecide.{sub}")
        for name in module.__all__:
            obj = getattr(module, name)
            if callable(obj):  # constants (DECISION_PALETTE) have no signature
                objects.setdefault(f"{sub}.{name}", obj)
    return objects


def _qualified(obj):
    return f"{obj.__module__}.{obj.__qualname__}"


def _surface():
    """Qualified names of the public functions, classes and their public methods."""
    names = set()
    for obj in _public_objects().values():
        names.add(_qualified(obj))
        if not inspect.isclass(obj):
            continue
        seen = set()
        for klass in obj.__mro__:
            if not klass.__module__.startswith("dtdecide"):
                continue
            for attr, value in vars(klass).items():
                if attr.startswith("_") or attr in seen:
                    continue
                seen.add(attr)
                if isinstance(value, (staticmethod, classmethod)):
                    value = value.__func__
                if inspect.isfunction(value):
                    names.add(f"{_qualified(obj)}.{attr}")
    return sorted(names)


SURFACE = _surface()


def _load(qualified_name):
    """The object named ``package.module.Class.method`` (longest importable prefix)."""
    parts = qualified_name.split(".")
    for k in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ModuleNotFoundError:
            continue
        for attr in parts[k:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(qualified_name)


def _is_method(qualified_name):
    owner = qualified_name.rsplit(".", 2)[-2]  # a class's name or a module's
    return owner[:1].isupper()


# ---------------------------------------------------------------------------- names
def test_every_public_name_resolves():
    for name, module in dtdecide._PUBLIC.items():
        obj = getattr(dtdecide, name)
        assert obj is getattr(importlib.import_module(module), name), name
        assert callable(obj), f"{name} should be a class or a function"
        assert name in dir(dtdecide)
        assert name in dtdecide.__all__


def test_unknown_name_raises_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'NotAThing'"):
        dtdecide.NotAThing  # noqa: B018


def test_surface_covers_estimators_and_displays():
    # the walk over classes must find the methods the brief names, or the
    # parametrized check below would silently check less than it should
    for name in [
        "dtdecide.tree._estimator._classes.ProfitTreeClassifier.fit",
        "dtdecide.tree._estimator._classes.ProfitTreeRegressor.predict_decision",
        "dtdecide.tree._estimator._classes.ProfitTreeClassifier.apply",  # defined on the base class
        "dtdecide.decision._estimator.DecisionEstimator.decide",
        "dtdecide.assess._display.ProfitCurveDisplay.from_estimator",
        "dtdecide.tree._studies._pruning_display.PruningStudyDisplay.plot",
        "dtdecide.models._naive_bayes.CostSensitiveNaiveBayes.expected_cost",
        "dtdecide.decision._matrix.DecisionMatrix.read_csv",
        # only in a subpackage's __all__
        "dtdecide.decision._capacity.allocate",
        "dtdecide.policy._rewards.Rewards.gamma",
        "dtdecide.decision._consequences.Consequences.take",
        "dtdecide.cli.read_decisions",
    ]:
        assert name in SURFACE
    assert len(SURFACE) > 100


def test_known_exceptions_are_still_on_the_surface():
    assert set(KNOWN) <= set(SURFACE)


# ---------------------------------------------------------------------------- docstrings
@pytest.mark.parametrize("name", SURFACE)
def test_numpydoc(name):
    result = numpydoc_validate.validate(name)
    required = REQUIRED - {"EX01"} if _is_method(name) else REQUIRED
    errors = [
        f"{code}: {message}"
        for code, message in result["errors"]
        if code in required and code not in KNOWN.get(name, set())
    ]
    assert not errors, f"{name}:\n" + "\n".join(errors)


@pytest.mark.parametrize("name", SURFACE)
def test_examples_show_an_output(name):
    # an Examples section made only of statements shows the reader nothing to check
    obj = _load(name)
    doc = inspect.getdoc(obj) or ""
    _, _, examples = doc.partition("Examples\n--------")
    parsed = doctest.DocTestParser().get_examples(examples)
    if _is_method(name) and not parsed:
        return  # the class's example shows it
    assert parsed, f"{name} has no example"
    assert any(example.want.strip() for example in parsed), f"{name} shows no output"


# a Sphinx role's target: :func:`name`, :func:`~name`, :meth:`text <name>`
_ROLE_TARGET = re.compile(r":(?:mod|func|class|meth|attr|obj|data):`~?(?:[^`<]*<)?([\w.]+)>?`")


@pytest.mark.parametrize("name", SURFACE)
def test_no_reference_to_private_code(name):
    doc = inspect.getdoc(_load(name)) or ""
    private = [target for target in _ROLE_TARGET.findall(doc)
               if any(part.startswith("_") for part in target.split("."))]
    assert not private, f"{name} refers its reader to private code: {private}"


def test_reference_pattern_finds_private_targets():
    # the check above must see the three spellings of a role
    doc = (":mod:`dtdecide.a._b` :func:`~dtdecide._c.d` "
           ":meth:`text <dtdecide.e._f.g>` :class:`dtdecide.Public`")
    assert _ROLE_TARGET.findall(doc) == ["dtdecide.a._b", "dtdecide._c.d", "dtdecide.e._f.g",
                                         "dtdecide.Public"]


def test_allocate_states_the_auto_limits_it_uses():
    # the public docstring gives the numbers of method="auto" (the constants are private)
    from dtdecide.decision import _capacity

    doc = " ".join(inspect.getdoc(_capacity.allocate).split())
    assert f"at most {_capacity.AUTO_EXACT_PAIRS:,} pairs" in doc
    assert f"after {_capacity.AUTO_NODE_LIMIT:,} nodes" in doc
    assert f"more than {_capacity.GAP_WARNING:.1%} (relative)" in doc


def _stated_default(text):
    """The value of a ``default=`` written in a docstring (``100_000``, ``1e-4``,
    ``"auto"``, ``("dr", "ipw")``)."""
    return ast.literal_eval(text.strip())


@pytest.mark.parametrize("name", SURFACE)
def test_stated_defaults_are_the_signature_s(name):
    obj = _load(name)
    try:
        signature = inspect.signature(obj)
    except ValueError:  # warnings and errors: a built-in constructor, no defaults
        return
    doc = numpydoc_validate.Validator(numpydoc_validate.get_doc_object(obj))
    wrong = []
    for param, (kind, _) in doc.doc_parameters.items():
        match = re.search(r"\bdefault=(.+)$", kind)
        if not match:
            continue
        for one in param.split(","):
            actual = signature.parameters.get(one.strip().lstrip("*"))
            if actual is None:
                continue  # PR02 reports it
            stated = _stated_default(match.group(1))
            if stated != actual.default or isinstance(stated, bool) != isinstance(
                    actual.default, bool):
                wrong.append(f"{one.strip()}: default={match.group(1)} but "
                             f"{actual.default!r} in the signature")
    assert not wrong, f"{name}: " + "; ".join(wrong)


def test_stated_default_reads_the_spellings_in_use():
    assert _stated_default("100_000") == 100000
    assert _stated_default("1e-4") == 0.0001
    assert _stated_default('("dr", "ipw")') == ("dr", "ipw")
    assert _stated_default('"auto"') == "auto"
    assert _stated_default("None") is None


def _fitted_estimators():
    """Small fits of the estimators (each sets its fitted attributes whatever the data)."""
    import numpy as np
    from sklearn.linear_model import LinearRegression, LogisticRegression

    from dtdecide import (
        DecisionEstimator,
        DecisionMatrix,
        ProfitTreeClassifier,
        ProfitTreeRegressor,
        PruningStudy,
    )
    from dtdecide.models import (
        CostSensitiveNaiveBayes,
        FlatCostSensitiveClassifier,
        HierarchicalCostSensitiveClassifier,
    )
    from dtdecide.policy import PolicyTree, make_logged_campaign

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = np.where(X[:, 0] + rng.normal(size=300) > 0, "yes", "no")
    y3 = rng.integers(0, 3, 300)
    m = DecisionMatrix({"call": [10, -1], "skip": [0, 0]}, levels=["yes", "no"])
    tree = ProfitTreeClassifier(decision_matrix=m, max_depth=3).fit(X, y)
    log = make_logged_campaign(400, random_state=0)
    return [
        tree,
        ProfitTreeClassifier(decision_matrix=m, max_depth=2, honest_fraction=0.5,
                             random_state=0).fit(X, y),
        ProfitTreeRegressor(max_depth=3).fit(X, X[:, 0]),
        PruningStudy(tree, cv=2, random_state=0).fit(X_train=X, y_train=y),
        DecisionEstimator(LogisticRegression(), decision_matrix=m).fit(X, y),
        PolicyTree(decisions=log.decisions, outcome_model=LinearRegression(),
                   propensity_model=LogisticRegression(), cv=2, honest=True,
                   random_state=0).fit(log.X, log.action, log.outcome),
        CostSensitiveNaiveBayes().fit(X, y3),
        FlatCostSensitiveClassifier().fit(X, y3),
        HierarchicalCostSensitiveClassifier().fit(X, y3),
    ]


def test_fitted_attributes_are_documented():
    undocumented = {}
    for est in _fitted_estimators():
        doc = numpydoc_validate.Validator(numpydoc_validate.get_doc_object(type(est)))
        names = {n.strip() for a in doc.doc.get("Attributes", ()) for n in a.name.split(",")}
        fitted = {a for a in vars(est) if a.endswith("_") and not a.startswith("_")}
        if fitted - names:
            undocumented[type(est).__name__] = sorted(fitted - names)
    assert not undocumented, f"fitted attributes missing from Attributes: {undocumented}"
