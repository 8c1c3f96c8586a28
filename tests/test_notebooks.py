"""Executed documentation: every notebook, the README example and the how-to code.

The notebooks under notebooks/ are run with nbclient and must carry no outputs in git; the
README's example must print exactly the output the README shows; the Python code blocks of
the how-to pages must run.
"""

import contextlib
import io
import re
import textwrap
from pathlib import Path

import pytest
from threadpoolctl import threadpool_limits

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK_DIR = ROOT / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
TIMEOUT_PER_CELL = 300


def test_notebooks_exist():
    names = [p.name[:2] for p in NOTEBOOKS]
    assert names[:1] and all(n.isdigit() for n in names), names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_committed_notebook_has_no_outputs(path):
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [], f"{path.name}: a code cell has outputs"
            assert cell.execution_count is None, f"{path.name}: execution count kept"


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path, tmp_path, monkeypatch):
    if "dask" in path.stem:  # needs the optional dtdecide[dask] extra (.ci/run installs it)
        pytest.importorskip("dask.dataframe")
        pytest.importorskip("distributed")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("PYTHONHASHSEED", "0")
    # one thread per kernel: OpenMP/BLAS threads fighting over 2 shared cores make
    # scikit-learn's boosting ten times slower, never faster, when tests run in parallel
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        monkeypatch.setenv(name, "1")
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb,
        timeout=TIMEOUT_PER_CELL,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
        # the outputs are read once every cell has run: the kernel is stopped at once
        # rather than asked to shut down and waited for (about a second per notebook)
        shutdown_kernel="immediate",
    )
    client.execute()
    errors = [
        output
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if output.output_type == "error"
    ]
    assert not errors


def _fenced_blocks(text, language):
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)


@pytest.mark.notebook
def test_readme_example_prints_what_the_readme_shows():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Ten lines", 1)[1]
    code = _fenced_blocks(section, "python")[0]
    shown = _fenced_blocks(section, "text")[0]
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer), threadpool_limits(1):
        exec(compile(code, "README.md", "exec"), {})
    assert buffer.getvalue() == shown


def _rst_python_blocks(text):
    blocks = re.findall(r"\.\. code-block:: python\n\n((?:(?:   .*)?\n)+)", text)
    return [textwrap.dedent(block) for block in blocks]


HOWTO_PAGES = [ROOT / "docs" / "quickstart.rst", *sorted((ROOT / "docs" / "howto").glob("*.rst"))]


@pytest.mark.notebook
@pytest.mark.parametrize("page", HOWTO_PAGES, ids=[p.stem for p in HOWTO_PAGES])
def test_howto_python_code_runs(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    for i, block in enumerate(_rst_python_blocks(page.read_text())):
        if "read_csv(\"bank_decisions.csv\"" in block:
            # the page shows the file's content just above the code
            content = re.search(r"code-block:: text\n\n((?:   .*\n)+)", page.read_text())
            (tmp_path / "bank_decisions.csv").write_text(textwrap.dedent(content.group(1)))
        with threadpool_limits(1):
            exec(compile(block, f"{page.name}[{i}]", "exec"), {})


def test_readme_links_lead_to_files():
    # a page renamed or removed must not leave the README pointing at nothing
    readme = (ROOT / "README.md").read_text()
    targets = re.findall(r"\]\(((?!https?:|#)[^)#]+)(?:#[^)]*)?\)", readme)
    assert len(targets) > 10, targets
    missing = [t for t in targets if not (ROOT / t).exists()]
    assert not missing, f"README links to missing files: {missing}"


def test_readme_test_command_is_the_one_ci_runs():
    # the README's second set-up command runs the suite exactly as .ci/run does
    readme = (ROOT / "README.md").read_text()
    setup = _fenced_blocks(readme.split("## Set-up", 1)[1].split("\n## ", 1)[0], "bash")
    assert len(setup) == 2, setup
    test_command = setup[1].split("&&")[-1].strip()
    ci = (ROOT / ".ci" / "run").read_text()
    assert f"\n{test_command}\n" in ci


def test_files_the_docs_name_exist():
    # "benchmarks/bench_policy.py measures ...", "tests/policy/test_value.py checks ...":
    # a script or test renamed must not leave the guide, the README or a docstring
    # naming nothing
    pattern = re.compile(r"\b(?:benchmarks|tests|notebooks|docs)/[\w./-]+\.(?:py|sh|rst|ipynb|md)\b")
    texts = [ROOT / "README.md", *(ROOT / "docs").rglob("*.rst"),
             *(ROOT / "dtdecide").rglob("*.py")]
    named = {m for path in texts for m in pattern.findall(path.read_text())}
    assert len(named) > 20, sorted(named)
    missing = sorted(n for n in named if not (ROOT / n).exists())
    assert not missing, f"the docs name files that do not exist: {missing}"
