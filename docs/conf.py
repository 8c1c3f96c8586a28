"""Sphinx configuration for the dtdecide documentation.

Build with ``python -m sphinx -W --keep-going -b html docs docs/_build/html``. Nothing is
downloaded: the theme is the bundled alabaster and there is no intersphinx.

The API reference is generated from the package at build time: for each subpackage, a page
lists and documents the names in its ``__all__`` (see ``_write_api_pages``), so a name that
is added or removed in the code appears in or leaves the reference without editing the docs.
The ``dtdecide --help`` texts shown on the command-line page are generated the same way.
"""

import contextlib
import io
import os
import sys
from importlib import import_module
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
os.environ.setdefault("MPLBACKEND", "Agg")

import dtdecide  # noqa: E402

project = "dtdecide"
author = "dtdecide developers"
copyright = "2026, dtdecide developers"
version = release = dtdecide.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
]

html_theme = "alabaster"
html_static_path = ["_static"]
html_title = f"dtdecide {release}"
templates_path = []
exclude_patterns = ["_build", "_generated_help/*", "dev/*.md", "Thumbs.db", ".DS_Store"]
root_doc = "index"

autosummary_generate = False
autodoc_typehints = "none"
autodoc_default_options = {"member-order": "bysource"}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# Every cross-reference must resolve (with -W a broken one fails the build): a reader who
# clicks dtdecide.decide must land on its entry. Not checked: other projects' names
# (there is no intersphinx, so they render as plain code) and the private modules and
# functions the developer notes name (they have no API entry).
nitpicky = True
nitpick_ignore_regex = [
    ("py:.*", r"(sklearn|pandas|numpy|scipy|matplotlib|joblib|dask|numba)(\..*)?"),
    ("py:.*", r"dtdecide(\.[A-Za-z]\w*)*\._.*"),
    ("py:mod", r"dtdecide"),
]

# subpackage -> page title, in reading order
API_SUBPACKAGES = {
    "dtdecide.decision": "Decision matrices and the decision engine",
    "dtdecide.tree": "Profit trees and pruning",
    "dtdecide.export": "Exports: leaf tables, rules, SQL, plots",
    "dtdecide.assess": "Profit charts and model comparison",
    "dtdecide.policy": "Policies from logged campaigns",
    "dtdecide.models": "Benefit- and cost-based classifiers",
    "dtdecide.datasets": "Bundled data",
    "dtdecide.cli": "Command-line helpers",
}


def _public_names(module):
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in vars(module) if not n.startswith("_") and n != "annotations"]
        names = [n for n in names if getattr(vars(module)[n], "__module__", "").startswith(
            module.__name__)]
    return [n for n in names if not n.startswith("_")]


def _write_if_changed(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def _write_api_pages():
    out = HERE / "api" / "generated"
    for modname, title in API_SUBPACKAGES.items():
        module = import_module(modname)
        names = _public_names(module)
        lines = [title, "=" * len(title), "", f".. automodule:: {modname}", "   :no-members:",
                 "", f".. currentmodule:: {modname}", ""]
        if names:
            lines += [".. autosummary::", ""] + [f"   {n}" for n in names] + [""]
        else:
            lines += ["Nothing is public in this subpackage yet.", ""]
        for name in names:
            obj = getattr(module, name)
            if isinstance(obj, type):
                # inherited too: the trees' decide, apply, edits ... live in base
                # classes and mixins (what is not dtdecide's is skipped below)
                lines += [f".. autoclass:: {name}", "   :members:", "   :inherited-members:",
                          ""]
            elif callable(obj):
                lines += [f".. autofunction:: {name}", ""]
            else:
                lines += [f".. autodata:: {name}", "   :no-value:", ""]
        _write_if_changed(out / f"{modname}.rst", "\n".join(lines))


def _write_cli_help():
    """Write the ``--help`` of ``dtdecide`` and of each sub-command as one rst file."""
    lines = []
    try:
        from dtdecide import cli
    except ImportError:  # the command line is not built yet
        cli = None
    commands = [[]] + [[name] for name in getattr(cli, "COMMANDS", ())]
    for command in commands if cli is not None else []:
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer), contextlib.suppress(SystemExit):
            cli.main([*command, "--help"])
        title = " ".join(["dtdecide", *command])
        lines += [title, "-" * len(title), "", ".. code-block:: text", ""]
        lines += [f"   {line}".rstrip() for line in buffer.getvalue().splitlines()] + [""]
    _write_if_changed(HERE / "_generated_help" / "reference.rst", "\n".join(lines) + "\n")


def _write_bank_description():
    from dtdecide.datasets import _bank

    _write_if_changed(HERE / "_generated_help" / "bank_descr.txt", _bank._bank_description())


# User-guide pages in reading order; the topic pages are written by the people who build
# each part and may not exist yet, so the toctree lists those present (plus any other page).
GUIDE_ORDER = ["concepts", "decisions", "trees", "pruning", "rules", "export", "assess",
               "models", "logged", "capacity", "long_work", "scale", "quality",
               "architecture"]


def _write_guide_toctree():
    present = sorted(p.stem for p in (HERE / "guide").glob("*.rst") if p.stem != "index")
    ordered = [n for n in GUIDE_ORDER if n in present] + [n for n in present
                                                          if n not in GUIDE_ORDER]
    lines = [".. toctree::", "   :maxdepth: 2", ""] + [f"   {n}" for n in ordered]
    _write_if_changed(HERE / "_generated_help" / "guide_toc.rst", "\n".join(lines) + "\n")


def _skip_foreign_members(app, what, name, obj, skip, options):
    """Document only what dtdecide defines: not the methods scikit-learn generates or
    inherits (``set_fit_request``, ``get_params``, ...), whose docstrings point into
    scikit-learn's own documentation."""
    if what != "class" or skip:
        return skip
    target = getattr(obj, "fget", obj)
    module = getattr(target, "__module__", None) or ""
    if not module.startswith("dtdecide"):
        return True
    return None


def _resolve_top_level_names(app, env, node, contnode):
    """Resolve ``dtdecide.decide`` and the other top-level names (and their members) to
    their entries in the API reference, which documents them under their subpackage
    (``dtdecide.decision.decide``)."""
    target = node.get("reftarget", "")
    if node.get("refdomain") != "py" or not target.startswith("dtdecide."):
        return None
    head, _, rest = target[len("dtdecide."):].partition(".")
    subpackage = dtdecide._PUBLIC.get(head)
    if subpackage is None:
        return None
    new_target = ".".join([subpackage, head] + ([rest] if rest else []))
    return env.get_domain("py").resolve_xref(env, node["refdoc"], app.builder,
                                             node["reftype"], new_target, node, contnode)


def setup(app):
    app.connect("autodoc-skip-member", _skip_foreign_members)
    app.connect("missing-reference", _resolve_top_level_names)


_write_api_pages()
_write_guide_toctree()
_write_cli_help()
_write_bank_description()
