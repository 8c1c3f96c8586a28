"""No class of the package is over 400 lines of code.

A class's size is the number of lines it spans, docstrings not counted (its own and
those of its methods and nested classes); blank lines and comments count, as they do
for a reader. Split a class that grows past the limit into modules of one concern (see
the architecture page of the user guide) rather than raising the limit.

Run this module as a script to print the largest classes.
"""

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "dtdecide"
LIMIT = 400

pytestmark = pytest.mark.skipif(not PACKAGE.is_dir(), reason="needs the source tree")


def _docstring_lines(tree):
    """Line numbers of every docstring (module, classes, functions)."""
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if (body and isinstance(body[0], ast.Expr)
                    and isinstance(body[0].value, ast.Constant)
                    and isinstance(body[0].value.value, str)):
                lines.update(range(body[0].lineno, body[0].end_lineno + 1))
    return lines


def class_sizes(source, where="<source>"):
    """``[(qualified name, lines of code)]`` of every class in ``source``."""
    tree = ast.parse(source, filename=where)
    docs = _docstring_lines(tree)
    out = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                name = f"{prefix}{child.name}"
                span = range(child.lineno, child.end_lineno + 1)
                out.append((name, sum(1 for i in span if i not in docs)))
                visit(child, f"{name}.")
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, f"{prefix}{child.name}.")

    visit(tree, "")
    return out


def package_class_sizes():
    sizes = []
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE.parent).as_posix()
        for name, n in class_sizes(path.read_text(encoding="utf-8"), where):
            sizes.append((f"{where}::{name}", n))
    return sizes


def test_the_counter_leaves_docstrings_out():
    source = '''
class A:
    """Doc
    on two lines."""

    x = 1  # a comment counts

    def f(self):
        """Doc."""
        return 1

    class B:
        """Doc."""
        y = 2
'''
    # A spans 13 lines, 4 of them docstrings; B spans 3 lines, 1 of them a docstring
    assert class_sizes(source) == [("A", 9), ("A.B", 2)]


def test_no_class_is_over_the_limit():
    sizes = package_class_sizes()
    assert len(sizes) > 50  # the walk found the package's classes
    over = [(name, n) for name, n in sizes if n > LIMIT]
    assert not over, f"classes over {LIMIT} lines of code (docstrings not counted): {over}"


if __name__ == "__main__":  # pragma: no cover - a report for developers
    for name, n in sorted(package_class_sizes(), key=lambda item: -item[1])[:15]:
        print(f"{n:5d}  {name}")
    sys.exit(0)
