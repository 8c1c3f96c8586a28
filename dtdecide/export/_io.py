"""Leaf tables to and from CSV, JSON, Markdown, Excel and Parquet, without loss.

A leaf table holds text columns (``rule``, ``decision``) and numeric ones (int64 counts,
float64 figures that may be NaN or infinite, such as an ROI). Every writer keeps floats
exactly (shortest round-trip text, or binary), and every reader restores the dtypes:

- CSV and Markdown: float64 values are written with ``repr`` (always with a ``.``, an
  exponent, ``inf`` or ``nan``), so a column of integers is read back as int64 and any
  other numeric column as float64; ``rule``/``decision`` stay text.
- JSON: a small self-describing document ``{"format", "columns", "dtypes", "data"}``;
  NaN is ``null`` and infinities are the strings ``"inf"``/``"-inf"`` (strict JSON).
- Excel: the table on sheet ``leaves`` (numbers as numbers), the dtypes on sheet ``dtypes``
  (Excel does not tell 4 from 4.0) and, on the hidden sheet ``exact``, the ``repr`` of every
  float (openpyxl writes only 16 significant digits); needs openpyxl.
- Parquet: native dtypes; needs pyarrow.
"""

import json
import math
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from ._files import atomic_path, check_path, input_file_error

__all__ = ["read_leaf_table", "write_leaf_table"]

_TEXT_COLUMNS = ("rule", "decision")
_SUFFIXES = {
    ".csv": "csv",
    ".json": "json",
    ".md": "markdown",
    ".markdown": "markdown",
    ".xlsx": "excel",
    ".parquet": "parquet",
    ".pq": "parquet",
}
_FORMATS = ("csv", "json", "markdown", "excel", "parquet")
_JSON_TAG = "dtdecide.leaf_table"


def _format_of(path, format):
    if format is not None:
        if format not in _FORMATS:
            raise ValueError(f"format must be one of {_FORMATS} or None; got {format!r}")
        return format
    suffix = Path(path).suffix.lower()
    if suffix not in _SUFFIXES:
        raise ValueError(
            f"format cannot be inferred from the suffix {suffix!r} of path; pass format= "
            f"one of {_FORMATS} (known suffixes: {sorted(_SUFFIXES)})"
        )
    return _SUFFIXES[suffix]


def _need(module, fmt):
    try:
        return __import__(module)
    except ImportError as exc:
        raise ImportError(
            f"writing or reading {fmt} needs the optional package {module} "
            f"(pip install {module}, or pip install dtdecide[io]); CSV, JSON and Markdown "
            "need nothing extra"
        ) from exc


def _is_text(series):
    return series.name in _TEXT_COLUMNS or not pd.api.types.is_numeric_dtype(series.dtype)


def _float_text(v):
    v = float(v)
    if math.isnan(v):
        return ""
    return repr(v)


def _check_table(table):
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"table must be a pandas DataFrame; got {type(table).__name__}")
    if not all(isinstance(c, str) for c in table.columns):
        raise ValueError(
            "table must have str column names; got "
            f"{[c for c in table.columns if not isinstance(c, str)]!r}"
        )
    if table.columns.duplicated().any():
        raise ValueError("table must not have duplicated column names")
    for c in table.columns:
        if _is_text(table[c]) and table[c].isna().any():
            # a file holds texts: a missing one would come back as "None", "nan" or ""
            raise ValueError(
                f"table column {c!r} holds {int(table[c].isna().sum())} missing value(s) "
                "among text; a leaf-table file cannot keep them apart from text: fill them "
                f"first (e.g. table[{c!r}].fillna(''))"
            )


def _numeric_from_text(values):
    """int64 when every non-empty token is an integer, else float64."""
    tokens = [str(v) for v in values]
    if tokens and all(t != "" and t.lstrip("-").isdigit() for t in tokens):
        return np.array([int(t) for t in tokens], dtype=np.int64)
    return np.array([float(t) if t != "" else np.nan for t in tokens], dtype=np.float64)


def _restore(columns, raw, text_columns):
    data = {}
    for c in columns:
        if c in text_columns:
            data[c] = pd.Series(raw[c], dtype="str") if len(raw[c]) else pd.Series([], dtype="str")
        else:
            data[c] = _numeric_from_text(raw[c])
    return pd.DataFrame(data, columns=list(columns))


def _md_escape(text):
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", "\\n")


def _md_split(line):
    """Cells of a Markdown table row, honouring backslash escapes."""
    cells, cur, i = [], [], 0
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    while i < len(line):
        ch = line[i]
        if ch == "\\" and i + 1 < len(line):
            nxt = line[i + 1]
            cur.append({"n": "\n"}.get(nxt, nxt))
            i += 2
            continue
        if ch == "|":
            cells.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
        i += 1
    if cur and "".join(cur).strip():
        cells.append("".join(cur))
    return [c[1:-1] if len(c) >= 2 and c[0] == " " and c[-1] == " " else c.strip() for c in cells]


def write_leaf_table(table, path, *, format=None):
    """Write a leaf table (see :func:`leaf_table`) so that it reads back without loss.

    Parameters
    ----------
    table : DataFrame
        A leaf table, or any frame of text and numeric columns with str names.
    path : str or path-like
        Destination file (missing folders are created; it is written under a temporary
        name beside it and renamed when complete).
    format : {"csv", "json", "markdown", "excel", "parquet"} or None, default=None
        None infers it from the suffix (``.csv``, ``.json``, ``.md``, ``.xlsx``,
        ``.parquet``). Excel needs openpyxl and Parquet needs pyarrow.

    Returns
    -------
    pathlib.Path
        The path written.

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> from dtdecide.export import read_leaf_table, write_leaf_table
    >>> table = pd.DataFrame({"leaf": [1, 2], "rule": ["x <= 0.5", "x > 0.5"],
    ...                       "EP": [0.1 + 0.2, float("inf")]})
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = write_leaf_table(table, os.path.join(tmp, "leaves.md"))
    ...     back = read_leaf_table(path)
    >>> back.equals(table)
    True
    """
    _check_table(table)
    path = check_path(path)
    fmt = _format_of(path, format)
    target = path
    # written beside the destination and renamed when complete (folders created)
    with atomic_path(target, "path") as path:
        text_cols = [c for c in table.columns if _is_text(table[c])]
        if fmt == "csv":
            out = pd.DataFrame(
                {
                    c: (table[c].astype(str) if c in text_cols else _num_texts(table[c]))
                    for c in table.columns
                },
                columns=table.columns,
            )
            out.to_csv(path, index=False)
        elif fmt == "json":
            data = {}
            for c in table.columns:
                if c in text_cols:
                    data[c] = [str(v) for v in table[c]]
                elif pd.api.types.is_integer_dtype(table[c].dtype):
                    data[c] = [int(v) for v in table[c]]
                else:
                    data[c] = [_json_float(v) for v in table[c]]
            doc = {
                "format": _JSON_TAG,
                "version": 1,
                "columns": list(table.columns),
                "dtypes": ["str" if c in text_cols else str(table[c].dtype) for c in table.columns],
                "data": data,
            }
            path.write_text(json.dumps(doc, allow_nan=False, indent=1), encoding="utf-8")
        elif fmt == "markdown":
            cols = list(table.columns)
            lines = [
                "| " + " | ".join(_md_escape(c) for c in cols) + " |",
                "|" + "|".join("---" for _ in cols) + "|",
            ]
            texts = {
                c: ([str(v) for v in table[c]] if c in text_cols else list(_num_texts(table[c])))
                for c in cols
            }
            for i in range(len(table)):
                lines.append("| " + " | ".join(_md_escape(texts[c][i]) for c in cols) + " |")
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        elif fmt == "excel":
            _need("openpyxl", "Excel")
            dtypes = pd.DataFrame(
                {
                    "column": list(table.columns),
                    "dtype": ["str" if c in text_cols else str(table[c].dtype) for c in table.columns],
                }
            )
            # openpyxl writes floats with 16 significant digits: keep exact texts aside
            exact = pd.DataFrame(
                {c: [repr(float(v)) for v in table[c]] for c in table.columns
                 if c not in text_cols and not pd.api.types.is_integer_dtype(table[c].dtype)},
                dtype=object,
            )
            with pd.ExcelWriter(path, engine="openpyxl") as writer:
                table.to_excel(writer, sheet_name="leaves", index=False, inf_rep="inf")
                dtypes.to_excel(writer, sheet_name="dtypes", index=False)
                exact.to_excel(writer, sheet_name="exact", index=False)
                writer.book["exact"].sheet_state = "hidden"
        else:
            _need("pyarrow", "Parquet")
            table.to_parquet(path, index=False)
    return target


def _num_texts(series):
    if pd.api.types.is_integer_dtype(series.dtype):
        return [str(int(v)) for v in series]
    return [_float_text(v) for v in series]


def _json_float(v):
    v = float(v)
    if math.isnan(v):
        return None
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def read_leaf_table(path, *, format=None):
    """Read a leaf table written by :func:`write_leaf_table`.

    Parameters
    ----------
    path : str or path-like
        File to read.
    format : {"csv", "json", "markdown", "excel", "parquet"} or None, default=None
        None infers it from the suffix.

    Returns
    -------
    DataFrame
        Equal to the table written: same columns, dtypes and values (NaN and infinities
        included).

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> from dtdecide.export import read_leaf_table, write_leaf_table
    >>> table = pd.DataFrame({"leaf": [1, 2], "decision": ["mail", "ignore"],
    ...                       "ROI": [float("nan"), 1 / 3]})
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = write_leaf_table(table, os.path.join(tmp, "leaves.json"))
    ...     back = read_leaf_table(path)
    >>> back.equals(table)
    True
    """
    path = check_path(path)
    error = input_file_error(path, f"path {str(path)!r}")
    if error is not None:
        raise error
    fmt = _format_of(path, format)
    if fmt in ("excel", "parquet"):
        _need({"excel": "openpyxl", "parquet": "pyarrow"}[fmt], fmt.capitalize())
    try:
        return _read_table(path, fmt)
    except _LeafTableError as exc:  # its own message, as a plain ValueError
        raise ValueError(str(exc)) from None
    except (ValueError, KeyError, TypeError, IndexError, zipfile.BadZipFile) as exc:
        # a file that is not what its suffix says, or damaged: name it, never a parser
        # traceback (UnicodeDecodeError, pandas' ParserError, pyarrow's ArrowInvalid
        # and JSONDecodeError are ValueErrors)
        raise ValueError(
            f"path {str(path)!r} cannot be read as a {fmt} leaf table written by "
            f"write_leaf_table ({type(exc).__name__}: {exc})"
        ) from None


class _LeafTableError(ValueError):
    """A file that is readable but not a leaf table (its message says why)."""


def _read_table(path, fmt):
    """The leaf table of the file ``path`` in format ``fmt``."""
    if fmt == "csv":
        raw = pd.read_csv(path, dtype=str, keep_default_na=False)
        text_cols = _guess_text_columns(raw)
        return _restore(raw.columns, {c: list(raw[c]) for c in raw.columns}, text_cols)
    if fmt == "json":
        doc = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(doc, dict) or doc.get("format") != _JSON_TAG:
            raise _LeafTableError(f"path {path} is not a dtdecide leaf-table JSON document")
        data = {}
        for c, dtype in zip(doc["columns"], doc["dtypes"]):
            vals = doc["data"][c]
            if dtype == "str":
                data[c] = pd.Series(vals, dtype="str")
            elif dtype.startswith("int"):
                data[c] = np.array(vals, dtype=dtype)
            else:
                data[c] = np.array(
                    [np.nan if v is None else float(v) for v in vals], dtype=dtype
                )
        return pd.DataFrame(data, columns=doc["columns"])
    if fmt == "markdown":
        lines = [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]
        if len(lines) < 2 or not set(lines[1].strip()) <= set("|-: ") or \
                "-" not in lines[1]:
            raise _LeafTableError(
                f"path {path} does not hold a Markdown table (a header row, then a "
                "separator row such as |---|---|)"
            )
        cols = _md_split(lines[0])
        rows = [_md_split(ln) for ln in lines[2:]]
        for k, row in enumerate(rows):
            if len(row) != len(cols):
                raise _LeafTableError(
                    f"path {path}: Markdown table row {k + 1} has {len(row)} cells, but the "
                    f"header has {len(cols)}"
                )
        raw = {c: [r[i] for r in rows] for i, c in enumerate(cols)}
        text_cols = _guess_text_columns(pd.DataFrame(raw, columns=cols, dtype=object))
        return _restore(cols, raw, text_cols)
    if fmt == "excel":
        dtypes = pd.read_excel(path, sheet_name="dtypes", dtype=str)
        table = pd.read_excel(path, sheet_name="leaves", dtype=object, na_filter=False)
        try:
            exact = pd.read_excel(path, sheet_name="exact", dtype=str, na_filter=False)
        except ValueError:  # edited by hand and the hidden sheet removed
            exact = pd.DataFrame()
        data = {}
        for c, dtype in zip(dtypes["column"], dtypes["dtype"]):
            col = table[c]
            if c in exact.columns and len(exact) == len(table):
                data[c] = np.array([float(v) for v in exact[c]], dtype=dtype)
            elif dtype == "str":
                data[c] = pd.Series(["" if _is_na(v) else str(v) for v in col], dtype="str")
            else:
                data[c] = np.array(
                    [np.nan if _is_na(v) else float(v) for v in col], dtype=np.float64
                ).astype(dtype)
        return pd.DataFrame(data, columns=list(dtypes["column"]))
    return pd.read_parquet(path)


def _is_na(v):
    return v is None or (isinstance(v, float) and math.isnan(v)) or (isinstance(v, str) and v == "")


def _guess_text_columns(raw):
    """Text columns of a frame of strings: the known text columns and non-numbers."""
    out = set()
    for c in raw.columns:
        if c in _TEXT_COLUMNS:
            out.add(c)
            continue
        for v in raw[c]:
            if v == "":
                continue
            try:
                float(v)
            except ValueError:
                out.add(c)
                break
    return out
