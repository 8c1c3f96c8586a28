"""A decision matrix as a table and as a file: ``to_frame``/``from_frame``, CSV and JSON
(a mixin of :class:`~dtdecide.DecisionMatrix`).

The constructors read a table's cells once, with errors naming the row, column or cell;
the writers give back what the readers take.
"""

import csv
import io
import json
import os
import re

import numpy as np
import pandas as pd

from ._matrix_cases import _as_float_array
from ._validation import repeated_names, reworded, shown_labels, text_labels

__all__ = ["_MatrixFilesMixin"]

def _python_scalar(x):
    return x.item() if isinstance(x, np.generic) else x


_DECIMAL_COMMA = re.compile(r"^[+-]?\d*,\d+(?:[eE][+-]?\d+)?$")
# the kind stored in the first header cell of a CSV: "level (kind=loss)"; the kinds are
# those of DecisionMatrix (_matrix._KINDS, which imports this module; a test compares them)
_CSV_KINDS = ("profit", "loss", "revenue")
_KIND_MARK = re.compile(r"^(?P<name>.*?)\s*\(\s*kind\s*=\s*(?P<kind>[^()]*?)\s*\)$",
                        re.IGNORECASE)


class _MatrixFilesMixin:
    """Tables and files of a decision matrix (the frame, CSV and JSON forms)."""

    def to_frame(self, *, prior_column="prior", cost_row="cost"):
        """The matrix as a DataFrame (a "decision data set").

        Index: levels (named ``"level"``) or knots (named ``"knot"``); columns: the
        decisions, plus ``prior_column`` when priors are set and a row ``cost_row``
        holding each decision's cost when costs are set.

        Parameters
        ----------
        prior_column : str, default="prior"
            Name of the column holding the priors (only written when priors are set).
        cost_row : str, default="cost"
            Label of the extra row holding the costs (only written when costs are set).

        Returns
        -------
        pandas.DataFrame
            The values in the user's sign, one row per level or knot.

        Examples
        --------
        >>> from dtdecide import DecisionMatrix
        >>> df = DecisionMatrix([[1, 0], [0, 1]], levels=["a", "b"],
        ...                     decisions=["x", "y"]).to_frame()
        >>> df.index.name, df.columns.tolist(), df.loc["a"].tolist()
        ('level', ['x', 'y'], [1.0, 0.0])
        """
        if self.is_case_specific:
            raise ValueError("a case-specific matrix has no single table; use to_json")
        if prior_column in self.decisions and self.priors is not None:
            raise ValueError(f"prior_column {prior_column!r} collides with a decision name")
        rows = self.knots if self.is_interval else self.levels
        df = pd.DataFrame(np.array(self.values), index=pd.Index(rows, name="knot" if
                          self.is_interval else "level"), columns=list(self.decisions))
        if self.priors is not None:
            df[prior_column] = self.priors
        if self.costs:
            if cost_row in set(pd.Index(rows).astype(str)):
                raise ValueError(f"cost_row {cost_row!r} collides with a level name")
            df = df.astype(object)
            cost = pd.DataFrame([[self.costs.get(d) for d in self.decisions]
                                 + ([None] if self.priors is not None else [])],
                                index=[cost_row], columns=df.columns, dtype=object)
            df = pd.concat([df, cost])
            df.index.name = "knot" if self.is_interval else "level"
        return df

    @classmethod
    def from_frame(cls, df, *, kind="profit", prior_column=None, cost_row=None,
                   interval=False):
        """Build a matrix from a decision data set.

        Parameters
        ----------
        df : DataFrame
            Index: target levels (or knots with ``interval=True``); columns: decisions.
        kind : {"profit", "loss", "revenue"}, default="profit"
        prior_column : str, default=None
            A column of ``df`` holding the priors (not a decision).
        cost_row : str, default=None
            An index label of ``df`` whose row holds each decision's cost (a number or
            a cost-column name; empty for no cost). Needs ``kind="revenue"``.
        interval : bool, default=False
            Read the index as knots of an interval target.

        Returns
        -------
        DecisionMatrix

        Examples
        --------
        >>> import pandas as pd
        >>> from dtdecide import DecisionMatrix
        >>> df = pd.DataFrame({"mail": [10, 0], "skip": [0, 0], "prior": [0.1, 0.9]},
        ...                   index=["buyer", "other"])
        >>> m = DecisionMatrix.from_frame(df, prior_column="prior")
        >>> m.decisions, m.priors.round(6).tolist()
        (('mail', 'skip'), [0.1, 0.9])
        """
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"df must be a pandas DataFrame; got {type(df).__name__}")
        names = text_labels(df.columns, "the columns of df").tolist()
        dup = repeated_names(names)
        if dup:
            raise ValueError(f"df names the decision column(s) {shown_labels(dup)} more than once")
        priors = None
        costs = None
        if cost_row is not None:
            if cost_row not in df.index:
                raise ValueError(f"cost_row {cost_row!r} is not an index label of df")
            cost_values = df.loc[cost_row]
            df = df.drop(index=cost_row)
            costs = {}
            for d, c in cost_values.items():
                if d == prior_column or c is None or (isinstance(c, float) and np.isnan(c)):
                    continue
                if isinstance(c, str):
                    try:
                        c = float(c)
                    except ValueError:
                        pass
                costs[str(d)] = c
        if prior_column is not None:
            if prior_column not in df.columns:
                raise ValueError(f"prior_column {prior_column!r} is not a column of df")
            priors = _numeric_frame(df[[prior_column]]).iloc[:, 0].to_numpy()
            df = df.drop(columns=prior_column)
        values = _numeric_frame(df)
        rows = _infer_index(df.index)
        if interval:
            return cls(_as_float_array(values, "values"), knots=rows, decisions=[str(c) for c in df.columns],
                       kind=kind, costs=costs or None, priors=priors)
        return cls(_as_float_array(values, "values"), levels=rows, decisions=[str(c) for c in df.columns],
                   kind=kind, costs=costs or None, priors=priors)

    def to_csv(self, path_or_buf=None, **kwargs):
        """Write :meth:`to_frame` as CSV, with the kind where a reader could not infer it.

        :meth:`read_csv` reads a file without a mark as profit, or as revenue when it has
        a ``cost`` row. Any other kind (loss; revenue without costs) is written in the
        first header cell, ``level (kind=loss)`` or ``knot (kind=loss)``, and
        :meth:`read_csv` restores it; profit files and revenue files with a cost row are
        written as they always were. A reader of an older dtdecide sees the marked cell as
        a plain header: it reads a marked level file as before (with the kind given to
        it), and a marked knot file as levels unless given ``interval=True``.

        Parameters
        ----------
        path_or_buf : str, path or file-like, default=None
            Where to write; None returns the CSV text.
        **kwargs
            Passed to :meth:`pandas.DataFrame.to_csv`.

        Returns
        -------
        str or None
            The CSV text when ``path_or_buf`` is None, otherwise None.

        Examples
        --------
        >>> from dtdecide import DecisionMatrix
        >>> print(DecisionMatrix([[1, 0], [0, 1]], levels=["a", "b"]).to_csv(), end="")
        level,d1,d2
        a,1.0,0.0
        b,0.0,1.0
        >>> print(DecisionMatrix([[1, 0], [0, 1]], levels=["a", "b"], kind="loss").to_csv(),
        ...       end="")
        level (kind=loss),d1,d2
        a,1.0,0.0
        b,0.0,1.0
        """
        rows = self.knots if self.is_interval else self.levels
        if rows is not None and "cost" in {str(r) for r in rows}:
            raise ValueError("a level named 'cost' would be read back by read_csv as the "
                             "cost row; rename the level, or save the matrix with to_json")
        if "prior" in self.decisions:
            raise ValueError("a decision named 'prior' would be read back by read_csv as the "
                             "priors; rename the decision, or save the matrix with to_json")
        _refuse_changed_on_reading(self.decisions, None if self.is_interval else rows)
        frame = self.to_frame()
        # a reader infers profit, or revenue from a cost row: any other kind is marked
        if self.kind != ("revenue" if self.costs else "profit"):
            frame.index.name = f"{frame.index.name} (kind={self.kind})"
        return frame.to_csv(path_or_buf, **kwargs)

    @classmethod
    def read_csv(cls, path_or_buf, *, kind=None, prior_column=None, cost_row=None,
                 interval=None):
        """Read a matrix written by :meth:`to_csv` (or any decision data set in CSV).

        The first column is the index (levels or knots); a first-column header of
        ``"knot"`` means an interval target unless ``interval`` says otherwise. A header
        cell ``level (kind=loss)`` (as :meth:`to_csv` writes a loss matrix) stores the
        kind.
        Numeric-looking level labels are read as numbers. With the defaults written by
        :meth:`to_csv`, a ``"prior"`` column and a ``"cost"`` row are recognised.

        The file is read strictly: every row must have as many fields as the header,
        decision names must be unique, and every value must be a number; errors name
        the line, the row and the column. The separator is a comma, or a semicolon
        (then decimals may be written with a comma, ``12,5``) or a tab when the header
        holds no comma.

        Parameters
        ----------
        path_or_buf : str, path or file-like
            The CSV source.
        kind : {"profit", "loss", "revenue"}, default=None
            Kind of the values. None takes the kind stored in the first header cell
            (``level (kind=loss)``); a file without one (as every file was written before
            the kind was stored, and as profit files still are) is read as revenue when
            it has a cost row and as profit otherwise. A kind that conflicts with the
            stored one is an error, and so is a cost row with ``kind="profit"`` or
            ``"loss"`` (costs need revenue).
        prior_column : str, default=None
            Column holding the priors; None recognises a column named ``"prior"``.
        cost_row : str, default=None
            Row holding the costs; None recognises a row labelled ``"cost"``.
        interval : bool, default=None
            Whether the rows are knots of an interval target; None decides from the first
            column's header (``"knot"``).

        Returns
        -------
        DecisionMatrix
            The validated matrix.

        Examples
        --------
        >>> import io
        >>> from dtdecide import DecisionMatrix
        >>> m = DecisionMatrix([[1, 0], [0, 1]], levels=[0, 1], priors=[0.2, 0.8])
        >>> DecisionMatrix.read_csv(io.StringIO(m.to_csv())) == m
        True
        >>> DecisionMatrix.read_csv(io.StringIO("level (kind=loss),x,y\\na,1,5\\nb,4,0\\n")).kind
        'loss'
        """
        where = path_or_buf if isinstance(path_or_buf, (str, os.PathLike)) else None
        if where is None and not hasattr(path_or_buf, "read"):
            raise TypeError(f"path_or_buf must be a path or a file-like object; got "
                            f"{type(path_or_buf).__name__}")
        if where is not None and os.path.isdir(where):
            raise IsADirectoryError(f"path_or_buf {os.fspath(where)!r} is a folder, not a "
                                    "decision data set file")
        try:
            return cls._read_csv(path_or_buf, kind=kind, prior_column=prior_column,
                                 cost_row=cost_row, interval=interval)
        except UnicodeDecodeError as exc:
            shown = "path_or_buf" if where is None else os.fspath(where)
            raise ValueError(f"{shown}: not UTF-8 text ({exc}); save the file as UTF-8") \
                from None
        except (TypeError, ValueError) as exc:
            if where is None:
                raise
            raise reworded(exc, f"{os.fspath(where)}: {exc}") from exc

    @classmethod
    def _read_csv(cls, path_or_buf, *, kind, prior_column, cost_row, interval):
        if interval is not None and not isinstance(interval, bool):
            raise TypeError(f"interval must be True, False or None; got {interval!r}")
        header, rows, lines, decimal_comma = _read_csv_rows(path_or_buf)
        index_name, kind = _stored_kind(header[0].strip(), kind)
        columns = [h.strip() for h in header[1:]]
        labels = [r[0].strip() for r in rows]
        for label, line in zip(labels, lines):
            if not label:
                raise ValueError(f"line {line} has no label in the first column (the target "
                                 "level or knot of the row)")
        if interval is None:
            interval = index_name == "knot"
        if prior_column is None and "prior" in columns:
            prior_column = "prior"
        if cost_row is None and "cost" in labels:
            cost_row = "cost"
        if prior_column is not None and prior_column not in columns:
            raise ValueError(f"prior_column {prior_column!r} is not a column of the file")
        if cost_row is not None and cost_row not in labels:
            raise ValueError(f"cost_row {cost_row!r} is not a row label of the file")
        if cost_row is not None:
            if kind is None:
                kind = "revenue"
            elif kind != "revenue":
                raise ValueError(
                    f"costs are only allowed with kind='revenue': the file has a cost row "
                    f"{cost_row!r}, but kind={kind!r}; pass kind='revenue' (the values are "
                    "then revenues) or remove the cost row"
                )
        elif kind is None:
            kind = "profit"
        cells = []
        for label, row, line in zip(labels, rows, lines):
            where = f"row {label!r} (line {line})"
            out = []
            for col, cell in zip(columns, row[1:]):
                cell = cell.strip()
                if label == cost_row and col != prior_column:
                    out.append(_cost_cell(cell, decimal_comma))
                elif label == cost_row and cell == "":
                    out.append(np.nan)
                else:
                    out.append(_number_cell(cell, f"{where}, column {col!r}", decimal_comma,
                                            allow_empty=col == prior_column))
            cells.append(out)
        df = pd.DataFrame(cells, index=pd.Index(labels, name=index_name), columns=columns,
                          dtype=object)
        if cost_row is None:
            df = df.astype(np.float64)
        return cls.from_frame(df, kind=kind, prior_column=prior_column, cost_row=cost_row,
                              interval=interval)

    def _to_dict(self):
        return {
            "kind": self.kind,
            "levels": None if self.levels is None else [_python_scalar(v) for v in self.levels],
            "knots": None if self.knots is None else self.knots.tolist(),
            "decisions": list(self.decisions),
            "values": None if self.is_case_specific else self.values.tolist(),
            "costs": dict(self.costs) or None,
            "priors": None if self.priors is None else self.priors.tolist(),
            "case_specific": self.is_case_specific,
            "case_values": None if self.case_values is None else self.case_values.tolist(),
        }

    def to_json(self, path=None):
        """Serialise to JSON (everything, including ``kind`` and bound values).

        Returns the JSON text when ``path`` is None, otherwise writes it to ``path``.

        Parameters
        ----------
        path : str or path, default=None
            File to write; None returns the text.

        Returns
        -------
        str or None
            The JSON text when ``path`` is None, otherwise None.

        Examples
        --------
        >>> from dtdecide import DecisionMatrix
        >>> m = DecisionMatrix([[1, 0], [0, 1]], levels=[0, 1], kind="loss")
        >>> DecisionMatrix.from_json(m.to_json()) == m
        True
        """
        text = json.dumps(self._to_dict())
        if path is None:
            return text
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        return None

    @classmethod
    def from_json(cls, source):
        """Read a matrix from JSON text or a file path written by :meth:`to_json`.

        Parameters
        ----------
        source : str or path
            JSON text (starting with ``{``) or the path of a file holding it.

        Returns
        -------
        DecisionMatrix
            The validated matrix.

        Examples
        --------
        >>> from dtdecide import DecisionMatrix
        >>> DecisionMatrix.from_json('{"kind": "profit", "levels": ["a", "b"], '
        ...                          '"values": [[1, 0], [0, 1]]}').decisions
        ('d1', 'd2')
        """
        if isinstance(source, (str, os.PathLike)) and \
                not str(source).lstrip().startswith(("{", "[")):
            source = _read_json_file(source)
        try:
            data = json.loads(source)
        except (TypeError, ValueError, RecursionError) as exc:  # RecursionError: nested
            raise ValueError(f"source must be JSON text or a path to a JSON file: {exc}") from None
        if not isinstance(data, dict):
            raise ValueError(
                f"source must hold a JSON object (as written by to_json); got a JSON "
                f"{type(data).__name__}"
            )
        known = {"kind", "levels", "knots", "decisions", "values", "costs", "priors",
                 "case_specific", "case_values"}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"source has unknown keys: {sorted(unknown)!r}")
        required = ("decisions",) if data.get("case_specific") else ("values",)
        absent = [key for key in required if data.get(key) is None]
        if absent:
            raise ValueError(
                f"source has no {absent[0]!r} key; a decision matrix in JSON needs it "
                f"(got keys {sorted(data)!r})"
            )
        if data.get("case_specific"):
            return cls.case_specific(levels=data.get("levels"), knots=data.get("knots"),
                                     decisions=data["decisions"], kind=data.get("kind", "profit"),
                                     values=data.get("case_values"), priors=data.get("priors"))
        return cls(data.get("values"), levels=data.get("levels"), knots=data.get("knots"),
                   decisions=data.get("decisions"), kind=data.get("kind", "profit"),
                   costs=data.get("costs"), priors=data.get("priors"))


def _read_json_file(path):
    """The text of the JSON file ``path`` of :meth:`DecisionMatrix.from_json`."""
    shown = str(path) if len(str(path)) <= 80 else str(path)[:80] + "..."
    if os.path.isdir(path):
        raise IsADirectoryError(f"source {shown!r} is a folder; expected JSON text or the "
                                "path of a JSON file")
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except FileNotFoundError:
        raise FileNotFoundError(
            f"source {shown!r} is neither JSON text (starting with '{{') nor an existing file"
        ) from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"source file {shown!r} is not UTF-8 JSON text: {exc}") from None
    except OSError as exc:  # e.g. a name too long for a file: not a path at all
        raise ValueError(
            f"source {shown!r} is neither JSON text (starting with '{{') nor a readable "
            f"file ({exc.strerror})"
        ) from None


def _stored_kind(cell, kind):
    """The first header cell without its kind mark, and the kind to read the file with
    (the stored one; ``kind`` when the file stores none)."""
    mark = _KIND_MARK.match(cell)
    if mark is None:
        return cell, kind
    stored = mark.group("kind").lower()
    if stored not in _CSV_KINDS:
        raise ValueError(f"the header {cell!r} names kind {mark.group('kind')!r}; expected "
                         f"one of {_CSV_KINDS}")
    if kind is not None and kind != stored:
        raise ValueError(
            f"kind={kind!r} conflicts with the file, whose header {cell!r} stores kind "
            f"{stored!r}; leave kind=None to read the file as it says, or correct the header"
        )
    return mark.group("name"), stored


def _numeric_frame(df):
    """``df`` as floats; a cell that is not a number is named by its row and column."""
    try:
        return df.apply(pd.to_numeric, errors="raise")
    except (TypeError, ValueError):
        pass
    for col in df.columns:
        for label, cell in df[col].items():
            try:
                pd.to_numeric(pd.Series([cell]), errors="raise")
            except (TypeError, ValueError):
                raise TypeError(
                    f"df must contain only numbers outside cost_row: row {label!r}, column "
                    f"{col!r} holds {cell!r}"
                ) from None
    raise TypeError("df must contain only numbers outside cost_row")  # pragma: no cover


def _read_csv_rows(path_or_buf):
    """Header, data rows and their line numbers of a decision data set, read strictly.

    The separator is a comma, or a semicolon or tab when the header holds no comma (a
    semicolon file may write decimals with a comma). Every row must have as many fields
    as the header; blank lines are skipped.
    """
    if isinstance(path_or_buf, (str, os.PathLike)):
        with open(path_or_buf, encoding="utf-8-sig", newline="") as fh:
            text = fh.read()
    else:
        text = path_or_buf.read()
        if isinstance(text, bytes):
            text = text.decode("utf-8-sig")
        text = text.lstrip("\ufeff")
    first = next((ln for ln in text.splitlines() if ln.strip()), None)
    if first is None:
        raise ValueError("the file is empty; expected a header 'level,<decision>,...' "
                         "and one row per target level")
    sep = ","
    if "," not in first:
        sep = ";" if ";" in first else ("\t" if "\t" in first else ",")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep)
    header, rows, lines = None, [], []
    for row in reader:
        if not any(cell.strip() for cell in row):
            continue
        if header is None:
            header = row
            if len(header) < 2:
                raise ValueError(
                    f"the header {first.strip()!r} has no decision column; expected the "
                    "first column of target levels (or knots) and one column per decision, "
                    "separated by commas (or semicolons)"
                )
            names = [h.strip() for h in header[1:]]
            empty = [k + 2 for k, h in enumerate(names) if not h]
            if empty:
                raise ValueError(
                    f"column {empty[0]} of the header has no name (a trailing separator?); "
                    f"header: {first.strip()!r}"
                )
            dup = repeated_names(names)
            if dup:
                raise ValueError(
                    f"the header names the decision column(s) {shown_labels(dup)} more than once; "
                    "decision names must be unique"
                )
            text_labels(names, "the header")  # one text in two Unicode forms
            continue
        if len(row) != len(header):
            raise ValueError(
                f"line {reader.line_num} has {len(row)} fields, but the header has "
                f"{len(header)} ({sep.join(h.strip() for h in header)!r}): "
                f"{sep.join(row)!r}"
            )
        rows.append(row)
        lines.append(reader.line_num)
    if not rows:
        raise ValueError("the file has a header but no rows; expected one row per level")
    return header, rows, lines, sep != ","


def _number_cell(cell, where, decimal_comma, allow_empty=False):
    if cell == "":
        if allow_empty:
            return np.nan
        raise ValueError(f"{where} is empty; every level needs a number for every decision")
    text = cell.replace(",", ".") if decimal_comma and _DECIMAL_COMMA.match(cell) else cell
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{where}: {cell!r} is not a number") from None
    if not np.isfinite(value):
        raise ValueError(f"{where}: {cell!r} is not a finite number")
    return value


def _cost_cell(cell, decimal_comma):
    """A cost-row cell: NaN (no cost), a number, or a cost-column name."""
    if cell == "":
        return np.nan
    text = cell.replace(",", ".") if decimal_comma and _DECIMAL_COMMA.match(cell) else cell
    try:
        return float(text)
    except ValueError:
        return cell


_BOOL_TEXT = {"True": True, "TRUE": True, "true": True,
              "False": False, "FALSE": False, "false": False}
"""The texts pandas' ``read_csv`` reads as booleans (its default true and false values)."""


def _label_kind(v):
    return "text" if isinstance(v, str) else "bool" if isinstance(v, (bool, np.bool_)) \
        else "number"


def _refuse_changed_on_reading(decisions, levels):
    """Refuse to write decisions or levels that :meth:`read_csv` would read back as
    other labels: it strips the spaces around a name, and reads levels that all look
    like numbers (or booleans) as numbers (booleans), so the text level ``"1"`` would
    come back as the number 1 and the number 1 beside a text level as ``"1"``."""
    for d in decisions:
        if d != d.strip():
            raise ValueError(
                f"the decision {d!r} would be read back by read_csv as {d.strip()!r} (it "
                "strips the spaces around names); rename it, or save the matrix with "
                "to_json")
    if levels is None:
        return
    back = _infer_index([str(v).strip() for v in levels])
    for v, b in zip(levels, back):
        if _label_kind(v) != _label_kind(b) or v != b:
            raise ValueError(
                f"the level {v!r} would be read back by read_csv as {b!r}; rename the "
                "levels, or save the matrix with to_json")


def _infer_index(index):
    """Labels from a frame index; numeric-looking strings become numbers and
    boolean-looking ones booleans, as pandas reads the same texts of a data file (so the
    levels of a file's True/False target, or of a saved matrix of bool levels, match)."""
    labels = list(index)
    if labels and all(isinstance(v, str) and v.strip() in _BOOL_TEXT for v in labels):
        return [_BOOL_TEXT[v.strip()] for v in labels]
    if labels and all(isinstance(v, str) for v in labels):
        num = pd.to_numeric(pd.Series(labels), errors="coerce")
        if not num.isna().any():
            if np.all(num == np.round(num)) and all("." not in v and "e" not in v.lower()
                                                      for v in labels):
                return num.astype(np.int64).tolist()
            return num.tolist()
    return labels
