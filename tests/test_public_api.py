"""The public surface of dtdecide: names resolve, docstrings are complete, examples run.

Three checks:

- every name of ``dtdecide._PUBLIC`` resolves lazily and is listed by ``dir(dtdecide)``;
- every public class and function, and every public method that a dtdecide class defines
  (estimators, displays, studies, the decision matrix), passes the numpydoc checks listed
  in ``REQUIRED`` (docstring present, every parameter documented and no unknown ones, in
  signature order, a Returns section on functions, an Examples section);
- the Examples sections of every module under ``dtdecide/`` run with ``doctest``.
"""

import doctest
import importlib
import inspect
import pkgutil

import pytest

import dtdecide

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
numpydoc_validate = pytest.importorskip("numpydoc.validate")

# numpydoc codes every public object must pass:
#   GL08 docstring present; PR01 every parameter documented; PR02 no unknown parameter;
#   PR03 parameters in signature order; PR04 every parameter has a type; PR07 every
#   parameter described; RT01 Returns section (functions and methods); RT03 every return
#   value described; EX01 Examples section.
REQUIRED = {"GL08", "PR01", "PR02", "PR03", "PR04", "PR07", "RT01", "RT03", "EX01"}

# Failures left on purpose, each with the reason. Keys: qualified name -> set of codes.
KNOWN = {}

# Module doctests that other test files already run and that take seconds here.
DOCTESTS_RUN_ELSEWHERE = {
    "dtdecide.export._persist",  # tests/export/test_export_doctests.py (fits and saves)
    "dtdecide.cli",  # tests/test_cli.py (prints usage text)
}


def _public_objects():
    return {name: getattr(dtdecide, name) for name in sorted(dtdecide._PUBLIC)}


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


def _modules():
    out = []
    for info in pkgutil.walk_packages(dtdecide.__path__, "dtdecide."):
        if info.name.endswith("__main__") or info.name in DOCTESTS_RUN_ELSEWHERE:
            continue
        out.append(info.name)
    return sorted(out)


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
        "dtdecide.tree._classes.ProfitTreeClassifier.fit",
        "dtdecide.tree._classes.ProfitTreeRegressor.predict_decision",
        "dtdecide.tree._classes.ProfitTreeClassifier.apply",  # defined on the base class
        "dtdecide.decision._estimator.DecisionEstimator.decide",
        "dtdecide.assess._display.ProfitCurveDisplay.from_estimator",
        "dtdecide.tree._pruning_display.PruningStudyDisplay.plot",
        "dtdecide.models._naive_bayes.CostSensitiveNaiveBayes.expected_cost",
        "dtdecide.decision._matrix.DecisionMatrix.read_csv",
    ]:
        assert name in SURFACE
    assert len(SURFACE) > 100


def test_known_exceptions_are_still_on_the_surface():
    assert set(KNOWN) <= set(SURFACE)


# ---------------------------------------------------------------------------- docstrings
@pytest.mark.parametrize("name", SURFACE)
def test_numpydoc(name):
    result = numpydoc_validate.validate(name)
    errors = [
        f"{code}: {message}"
        for code, message in result["errors"]
        if code in REQUIRED and code not in KNOWN.get(name, set())
    ]
    assert not errors, f"{name}:\n" + "\n".join(errors)


@pytest.mark.parametrize("name", SURFACE)
def test_examples_show_an_output(name):
    # an Examples section made only of statements shows the reader nothing to check
    obj = _load(name)
    doc = inspect.getdoc(obj) or ""
    _, _, examples = doc.partition("Examples\n--------")
    parsed = doctest.DocTestParser().get_examples(examples)
    assert parsed, f"{name} has no example"
    assert any(example.want.strip() for example in parsed), f"{name} shows no output"


# ---------------------------------------------------------------------------- examples
@pytest.mark.parametrize("module_name", _modules())
def test_docstring_examples_run(module_name):
    import matplotlib.pyplot as plt

    module = importlib.import_module(module_name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(
        optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS, verbose=False
    )
    failures = []
    try:
        for test in finder.find(module, module_name):
            result = runner.run(test, out=failures.append)
            assert result.failed == 0, f"{test.name}:\n" + "".join(failures)
    finally:
        plt.close("all")


def test_modules_that_define_public_names_have_examples():
    defining = {obj.__module__ for obj in _public_objects().values()}
    for module_name in sorted(defining):
        module = importlib.import_module(module_name)
        tests = doctest.DocTestFinder(exclude_empty=True).find(module, module_name)
        assert sum(len(t.examples) for t in tests) > 0, module_name
