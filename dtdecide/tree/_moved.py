"""Old module paths of the tree package, for pickles written before it was layered.

Layer: none (package plumbing, imported by ``dtdecide/tree/__init__.py`` only).

Until the tree package was split into sub-packages, its classes lived in flat modules
(``dtdecide.tree._classes``, ``dtdecide.tree._tree``, ...). A joblib or skops file stores a
class by its module path, so a fitted tree pickled by an earlier release names those
paths. :func:`register` puts a light alias for each old path in ``sys.modules``: on
the first attribute lookup (what unpickling does) the alias imports the module(s) that
now hold the names and answers from them. New pickles name the new paths; nothing else
in the package imports the old ones. The safe model format of :mod:`dtdecide.export`
stores no module paths and needs none of this.
"""

import importlib
import sys
import types

# old flat module -> the modules that now hold its names, looked up in this order
MOVED = {
    "_binning": ("_kernels._binning",),
    "_caserule": ("_structure._caserule",),
    "_classes": ("_estimator._classes", "_estimator._deciding", "_estimator._growing",
                 "_estimator._fit_checks", "_estimator._editing", "_estimator._pruning",
                 "_estimator._dask"),
    "_confidence": ("_structure._confidence",),
    "_criteria": ("_kernels._criteria",),
    "_dask": ("_backends._dask", "_estimator._dask", "_studies._dask"),
    "_dask_storage": ("_backends._dask_storage",),
    "_edit": ("_algorithms._edit", "_estimator._editing"),
    "_encode": ("_structure._encode",),
    "_exact": ("_algorithms._exact",),
    "_grower": ("_algorithms._grower",),
    "_histogram": ("_kernels._histogram",),
    "_html": ("_estimator._html",),
    "_leaf": ("_structure._leaf",),
    "_nodeview": ("_structure._nodeview",),
    "_parallel": ("_kernels._parallel",),
    "_profit": ("_kernels._profit",),
    "_pruning": ("_algorithms._pruning", "_estimator._pruning"),
    "_pruning_display": ("_studies._pruning_display",),
    "_splitter": ("_kernels._splitter",),
    "_study": ("_studies._study", "_studies._scorer"),
    "_tree": ("_structure._tree", "_kernels._apply"),
}


class _MovedModule(types.ModuleType):
    """Stands at an old module path; answers attribute lookups from the new modules."""

    def __init__(self, name, targets):
        super().__init__(name, f"Old path of {', '.join(targets)} (for old pickles).")
        self.__dict__["_targets"] = targets

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        for target in self._targets:
            module = importlib.import_module(target)
            if hasattr(module, attr):
                return getattr(module, attr)
        raise AttributeError(
            f"module {self.__name__!r} (moved to {', '.join(self._targets)}) has no "
            f"attribute {attr!r}"
        )


def register(package):
    """Put an alias for every old module path of ``package`` in ``sys.modules``."""
    for old, news in MOVED.items():
        name = f"{package}.{old}"
        if name not in sys.modules:
            sys.modules[name] = _MovedModule(name, tuple(f"{package}.{n}" for n in news))
