"""Score a data file larger than memory: :func:`score_file`.

The input is read piece by piece (CSV in chunks of rows, Parquet batch by batch within
its row groups); every piece gets the checks the whole file would get (the model's
columns, the cost columns, the target) and is decided by the model's own ``decide`` (or
``predict``/``predict_proba`` for a tree without a decision matrix); its rows are
written at once to the output (CSV or Parquet, chunk by chunk) and its summary sums are
added to the running totals (:class:`~dtdecide.decision._result.SummaryTotals`), so
that memory holds one chunk whatever the file's size. The output is written to a
temporary file beside it and renamed into place only when every chunk is done: a failed
or interrupted run leaves no partial output and an existing file untouched.
"""

import contextlib
import csv
import gzip
import os
import sys
import warnings
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

from .._progress import progress_bar
from ..decision._result import SummaryTotals
from ..decision._validation import repeated_names, reworded, shown_labels
from ._caserule import cost_column_names
from ._common import refuse_tree_holder
from ._files import AtomicFile, input_file_error, other_kind_hint

__all__ = ["score_file"]

_SUFFIXES = {".csv": "csv", ".txt": "csv", ".gz": "csv", ".parquet": "parquet",
             ".pq": "parquet", ".xlsx": "excel"}
_ENGINES = {"parquet": "pyarrow", "excel": "openpyxl"}
# the names of the arguments in messages (the command line passes its option names)
_ARGS = {"target": "target", "keep": "keep", "data": "data file", "output": "output file"}


# ------------------------------------------------------------------------ helpers
def _kind_of(path, what):
    kind = _SUFFIXES.get(Path(path).suffix.lower())
    if kind is None:
        raise ValueError(
            f"{what} {str(path)!r}: unknown file type {Path(path).suffix!r}; expected .csv, "
            ".csv.gz, .txt, .parquet, .pq or .xlsx"
        )
    return kind


def _need_engine(kind, path, what):
    module = _ENGINES.get(kind)
    if module is None:
        return
    try:
        __import__(module)
    except ImportError:
        name = "Parquet" if kind == "parquet" else "Excel"
        raise ImportError(
            f"{what} {str(path)!r}: reading and writing {name} files needs the package "
            f"{module}; install it with: pip install 'dtdecide[io]' (or pip install {module})"
        ) from None


def _rows(first, n):
    return f"rows {first + 1:,}-{first + n:,}"


def missing_columns(frame, columns, what, option=None):
    """The message naming the ``columns`` that ``frame`` (described as ``what``) lacks, or
    None when it has them all; ``option`` names the option that asked for them."""
    missing = [c for c in columns if c not in frame.columns]
    if not missing:
        return None
    shown = ", ".join(map(repr, list(frame.columns)[:20]))
    named = f" (named by {option})" if option else ""
    return (f"{what} lacks the column(s) {', '.join(map(repr, missing))}{named}; "
            f"its columns are {shown}{' ...' if frame.shape[1] > 20 else ''}")


def _is_empty_column(col):
    """Every value missing (or blank text)."""
    if col.isna().all():
        return True
    if col.dtype == object or pd.api.types.is_string_dtype(col.dtype):
        text = col.astype("string").str.strip()
        return bool((text.isna() | (text == "")).all())
    return False


def _is_default_index(index, start=0):
    return (isinstance(index, pd.RangeIndex) and index.name is None
            and index.start == start and index.step == 1)


# ------------------------------------------------------------------------ readers
def _gzipped(path):
    return str(path).lower().endswith(".gz")


def _csv_header(path, sep, where):
    opener = gzip.open if _gzipped(path) else open
    try:
        with opener(path, "rt", newline="", encoding="utf-8-sig") as fh:
            header = next(csv.reader(fh, delimiter=sep), None)
    except (OSError, UnicodeDecodeError, csv.Error, EOFError, zlib.error) as exc:
        hint = other_kind_hint(path, "gzip" if _gzipped(path) else "csv")
        raise ValueError(f"{where} could not be read{hint}: {exc}") from exc
    if not header:
        raise ValueError(f"{where} has no rows or no columns")
    dup = repeated_names(header)
    if dup:
        raise ValueError(f"{where}: the header names the column(s) {shown_labels(dup)} "
                         "more than once")
    if len(header) == 1:
        other = next((s for s in (",", ";", "\t", "|") if s != sep and s in header[0]), None)
        if other is not None:
            shown = "tab" if other == "\t" else repr(other)
            raise ValueError(
                f"{where} has a single column {header[0]!r}: it looks {shown}-separated; "
                "give its separator (sep=, on the command line --sep)"
            )
    return header


class _FieldCounter:
    """A binary file that checks, as pandas reads it, that every line has the header's
    number of fields.

    pandas reads a row shorter than the header with missing values in its last columns,
    silently (a column missing from one part of a concatenated export, say); this
    reader raises a ``ValueError`` naming the line instead. Separators and line breaks
    inside double quotes are not counted (RFC 4180 quoting, doubled quotes included);
    blank lines, which pandas skips, are allowed. The counting is vectorised over each
    block pandas asks for, so it costs little beside the parsing.
    """

    def __init__(self, raw, sep, n_fields, where):
        self.raw = raw
        self.sep = ord(sep)
        self.n_fields = n_fields
        self.where = where
        self.line = 0  # lines ended so far (the header is line 1)
        self.count = 0  # separators so far in the open line
        self.in_quote = False
        self.blank = True  # the open line holds only white space so far

    def read(self, n=-1):
        data = self.raw.read(n)
        if data:
            self._scan(data)
        elif not self.blank or self.count:  # a last line without a line break
            self._check(np.array([self.count]), np.array([self.blank]), self.line)
            self.count, self.blank = 0, True
        return data

    def _check(self, counts, blank, first_line):
        bad = counts != self.n_fields - 1
        if self.n_fields > 1:
            bad &= ~((counts == 0) & blank)
        else:
            bad &= ~blank
        if bad.any():
            k = int(np.argmax(bad))
            if first_line + k == 0:  # the header itself: checked before
                bad[k] = False
                if not bad.any():
                    return
                k = int(np.argmax(bad))
            raise ValueError(
                f"{self.where}: line {first_line + k + 1:,} has {int(counts[k]) + 1} fields, "
                f"but the header has {self.n_fields}; "
                + ("a row shorter than the header would be read with missing values in "
                   "its last columns" if counts[k] + 1 < self.n_fields else
                   "its values cannot be matched to the columns")
            )

    def _scan(self, data):
        a = np.frombuffer(data, dtype=np.uint8)
        ends = np.flatnonzero(a == 10)
        seps = np.flatnonzero(a == self.sep)
        if self.in_quote or data.find(b'"') >= 0:
            # separators and line breaks inside quotes do not count
            quote = a == 34
            inside = (np.cumsum(quote) + self.in_quote) % 2 == 1
            self.in_quote = bool(inside[-1])
            ends = ends[~inside[ends]]
            seps = seps[~inside[seps]]
        if ends.size == 0:
            self.count += seps.size
            if self.blank and data.strip():
                self.blank = False
            return
        before = np.searchsorted(seps, ends)
        counts = np.diff(before, prepend=0)
        counts[0] += self.count
        blank = np.zeros(ends.size, dtype=bool)
        starts = np.concatenate([[0], ends[:-1] + 1])
        for k in np.flatnonzero(counts == 0):  # few: only lines without a separator
            blank[k] = not data[starts[k]:ends[k]].strip() and (k > 0 or self.blank)
        self._check(counts, blank, self.line)
        self.line += ends.size
        self.count = int(seps.size - before[-1])
        self.blank = not data[ends[-1] + 1:].strip()


# what reading a CSV file may raise about the file: damaged text, or (the last three) a
# damaged .gz file
_UNREADABLE = (pd.errors.ParserError, UnicodeDecodeError, EOFError, gzip.BadGzipFile,
               zlib.error)


def _csv_chunks(path, sep, chunk_size, where, text_columns=()):
    header = _csv_header(path, sep, where)
    opener = gzip.open if str(path).lower().endswith(".gz") else open
    with opener(path, "rb") as raw:
        counted = _FieldCounter(raw, sep, len(header), where)
        first = 0
        try:  # pandas reads the first block of the file here already
            # the model's text categories read as text: "01" stays "01", not the number 1
            dtype = {c: str for c in text_columns if c in header}
            reader = pd.read_csv(counted, sep=sep, chunksize=chunk_size, index_col=False,
                                 dtype=dtype or None)
        except _UNREADABLE as exc:
            raise ValueError(f"{where} could not be read: {exc}") from exc
        with reader:
            while True:
                try:
                    chunk = next(reader)
                except StopIteration:
                    return
                except _UNREADABLE as exc:
                    raise ValueError(
                        f"{where}: the chunk from data row {first + 1:,} could not be read: "
                        f"{exc}"
                    ) from exc
                chunk.index = pd.RangeIndex(first, first + len(chunk))
                yield chunk
                first += len(chunk)


def _stored_range(schema):
    """The RangeIndex that pandas stored as metadata only (start, step, name), or None."""
    import json

    try:
        meta = json.loads((schema.metadata or {}).get(b"pandas", b"{}"))
        (index,) = meta.get("index_columns", [None])
    except (ValueError, TypeError):
        return None
    if isinstance(index, dict) and index.get("kind") == "range":
        return {"start": int(index.get("start", 0)), "step": int(index.get("step", 1)),
                "name": index.get("name")}
    return None


def _parquet_chunks(path, chunk_size, where):
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(path)
        schema = pf.schema_arrow
    except (OSError, ValueError, pa.ArrowException) as exc:
        raise ValueError(f"{where} could not be read{other_kind_hint(path, 'parquet')}: "
                         f"{exc}") from exc
    names = list(schema.names)
    dup = repeated_names(names)
    if dup:
        raise ValueError(f"{where}: the file names the column(s) {shown_labels(dup)} "
                         "more than once")
    range_index = _stored_range(schema)
    first = 0
    batches = pf.iter_batches(batch_size=chunk_size)
    while True:
        try:
            batch = next(batches)
        except StopIteration:
            return
        except (OSError, ValueError, pa.ArrowException) as exc:
            raise ValueError(
                f"{where}: the chunk from data row {first + 1:,} could not be read: {exc}"
            ) from exc
        chunk = pa.Table.from_batches([batch], schema=schema).to_pandas()
        if isinstance(chunk.index, pd.RangeIndex):  # a stored range: this chunk's part
            start, step, name = (range_index or {"start": 0, "step": 1, "name": None}
                                 ).values()
            chunk.index = pd.RangeIndex(start + first * step,
                                        start + (first + len(chunk)) * step, step,
                                        name=name)
        yield chunk
        first += len(chunk)


def _frame_chunks(frame, chunk_size):
    for start in range(0, len(frame), chunk_size):
        yield frame.iloc[start:start + chunk_size]


def _open_input(path, sep, chunk_size, where, text_columns=()):
    """``(chunks, n_rows or None, keeps_index)`` of the input file."""
    path = Path(path)
    error = input_file_error(path, where)
    if error is not None:
        raise error
    kind = _kind_of(path, where.split(" '")[0])
    _need_engine(kind, path, where.split(" '")[0])
    if kind == "csv":
        return _csv_chunks(path, sep, chunk_size, where, text_columns), None
    if kind == "parquet":
        import pyarrow.parquet as pq

        try:
            n_rows = pq.ParquetFile(path).metadata.num_rows
        except Exception as exc:  # not a Parquet file: the reader names the cause
            raise ValueError(f"{where} could not be read{other_kind_hint(path, 'parquet')}: "
                             f"{exc}") from exc
        return _parquet_chunks(path, chunk_size, where), n_rows
    frame = read_excel_checked(path, where)  # small: read whole, then chunked
    return _frame_chunks(frame, chunk_size), len(frame)


def read_excel_checked(path, where):
    """The first sheet of an Excel file; a repeated column name (which pandas would
    rename ``name.1``) or a file of another type is a ``ValueError`` naming it."""
    try:
        import openpyxl

        book = openpyxl.load_workbook(path, read_only=True)
        try:
            first = next(book.worksheets[0].iter_rows(max_row=1, values_only=True), ())
        finally:
            book.close()
        header = [str(c) for c in first if c is not None]
        dup = repeated_names(header)
        if dup:
            raise ValueError(f"{where}: the header names the column(s) "
                             f"{shown_labels(dup)} more than once")
        return pd.read_excel(path)
    except (ValueError, OSError, KeyError, IndexError) as exc:
        if str(exc).startswith(where):
            raise
        raise ValueError(f"{where} could not be read{other_kind_hint(path, 'excel')}: "
                         f"{exc}") from exc
    except Exception as exc:  # openpyxl's own errors for a file that is not a workbook
        if type(exc).__module__.startswith(("openpyxl", "zipfile")):
            raise ValueError(f"{where} could not be read{other_kind_hint(path, 'excel')}: "
                             f"{exc}") from exc
        raise


# ------------------------------------------------------------------------ writers
class _CsvSink:
    def __init__(self, target, keep_index, gzipped=False):
        self.keep_index = keep_index
        self.own = not hasattr(target, "write")
        if not self.own:
            self.fh = target
        elif gzipped:  # a .csv.gz output is compressed, as its name says
            self.fh = gzip.open(target, "wt", newline="", encoding="utf-8")
        else:
            self.fh = open(target, "w", newline="", encoding="utf-8")
        self.first = True

    def write(self, frame):
        frame.to_csv(self.fh, header=self.first, index=self.keep_index)
        self.first = False

    def close(self):
        if self.own:
            self.fh.close()
        else:
            self.fh.flush()


class _ParquetSink:
    def __init__(self, target, keep_index, copied=()):
        self.target = target
        self.keep_index = keep_index
        self.copied = list(copied)  # the data's columns copied in front (keep)
        self.writer = None
        self.schema = None

    def write(self, frame):
        import pyarrow as pa
        import pyarrow.parquet as pq

        if self.writer is None:
            # a column empty in every row of the first chunk (a sparse note) is read as
            # floats; it is written as text, which later chunks' values can become
            empty = [c for c in self.copied if frame[c].dtype.kind == "f"
                     and frame[c].isna().all()]
            if empty:
                frame = frame.astype({c: "string" for c in empty})
            table = pa.Table.from_pandas(frame, preserve_index=self.keep_index)
            self.schema = table.schema
            self.writer = pq.ParquetWriter(self.target, self.schema)
        else:
            text = [c for c in frame.columns if c in self.schema.names
                    and (pa.types.is_string(self.schema.field(c).type)
                         or pa.types.is_large_string(self.schema.field(c).type))
                    and not pd.api.types.is_string_dtype(frame[c].dtype)]
            if text:
                frame = frame.astype({c: "string" for c in text})
            try:
                table = pa.Table.from_pandas(frame, schema=self.schema,
                                             preserve_index=self.keep_index)
            except (pa.ArrowException, ValueError, TypeError) as exc:
                raise ValueError(self._changed(frame, exc)) from exc
        self.writer.write_table(table)

    def _changed(self, frame, exc):
        """The message naming the column whose values the first chunk's type cannot
        hold."""
        import pyarrow as pa

        for c in frame.columns:
            if c not in self.schema.names:
                continue
            wanted = self.schema.field(c).type
            try:
                pa.Array.from_pandas(frame[c], type=wanted)
            except (pa.ArrowException, ValueError, TypeError):
                return (f"column {c!r} was written as {wanted} from the first chunk, but "
                        f"this chunk holds values of type {frame[c].dtype} "
                        f"({frame[c].dropna().iloc[:3].tolist()!r} ...); the output's "
                        "Parquet types are those of the first chunk: write a CSV output, "
                        "or give the column one type in every row")
        return (f"a column's type changed from the first chunk ({exc}); the output's "
                "Parquet schema is that of the first chunk")

    def close(self):
        if self.writer is not None:
            self.writer.close()


class _ExcelSink:
    """Excel is not written row by row: the chunks are kept and written at the end
    (an Excel sheet holds at most 1,048,576 rows anyway)."""

    def __init__(self, target, keep_index):
        self.target = target
        self.keep_index = keep_index
        self.parts = []

    def write(self, frame):
        self.parts.append(frame)

    def close(self):
        if self.parts:
            pd.concat(self.parts).to_excel(self.target, index=self.keep_index)


_SINKS = {"csv": _CsvSink, "parquet": _ParquetSink, "excel": _ExcelSink}


# ------------------------------------------------------------------------ scoring
class _PlainTotals:
    """Summary of a tree without a decision matrix: cases, misclassification or ASE."""

    def __init__(self, is_classifier, name, classes=None):
        self.is_classifier = is_classifier
        self.name = name
        # numeric classes compare as numbers: a target stored as 1.0 (a Parquet float
        # column, a CSV of decimals) is the class 1, not the text "1.0"
        self.numeric_classes = classes is not None and np.asarray(classes).dtype.kind in "iufb"
        self.n = 0
        self.loss = 0.0
        self.has_target = False

    def add(self, pred, y, first=0):
        self.n += len(pred)
        if y is None:
            return
        self.has_target = True
        if self.is_classifier and self.numeric_classes:
            actual = pd.to_numeric(pd.Series(np.asarray(y, dtype=object)),
                                   errors="coerce").to_numpy(dtype=float)
            text = np.isnan(actual)
            if text.any():
                k = int(np.argmax(text))
                raise ValueError(
                    f"the target column {y.name!r} must hold the model's classes, which are "
                    f"numbers; data row {first + k + 1:,} holds {y.iloc[k]!r}")
            predicted = np.asarray(pred, dtype=float)
            self.loss += float(np.count_nonzero(actual != predicted))
        elif self.is_classifier:
            # as text, as the command line always compared them (1 and "1" agree)
            actual = np.asarray(y, dtype=object).astype(str)
            self.loss += float(np.count_nonzero(actual != np.asarray(pred).astype(str)))
        else:
            actual = pd.to_numeric(y, errors="coerce").to_numpy(dtype=float)
            text = np.isnan(actual) & y.notna().to_numpy()
            if text.any():
                k = int(np.argmax(text))
                raise ValueError(
                    f"the target column {y.name!r} must be numeric for an interval target; "
                    f"data row {first + k + 1:,} holds {y.iloc[k]!r}")
            self.loss += float(np.sum((actual - pred) ** 2))

    def summary(self):
        out = {"n_cases": float(self.n)}
        if self.has_target:
            key = "misclassification_rate" if self.is_classifier else "average_squared_error"
            out[key] = self.loss / self.n if self.n else np.nan
        return pd.Series(out, name=self.name, dtype=float)


def _plain_cases(model, X, name):
    if model._is_classifier:
        proba = model.predict_proba(X)
        frame = pd.DataFrame(proba, columns=[f"P_{name}_{c}" for c in model.classes_],
                             index=X.index)
        frame.insert(0, f"I_{name}", model.predict(X))
        return frame
    return pd.DataFrame({f"P_{name}": model.predict(X)}, index=X.index)


class _Scorer:
    """The per-chunk work: checks, decisions, the rows to write, the running totals."""

    def __init__(self, model, *, target, keep, confidence, where, args):
        self.model = model
        self.where = where
        self.args = args
        self.features = [str(n) for n in model.feature_names_in_]
        categorical = getattr(model, "is_categorical_", None)
        self.numeric = [] if categorical is None else [
            n for n, cat in zip(self.features, categorical) if not cat]
        # categorical inputs whose training labels are all text (codes such as "01")
        labels = getattr(model, "categories_", None)
        self.text_columns = [] if categorical is None or labels is None else [
            n for n, cat, cats in zip(self.features, categorical, labels)
            if cat and cats is not None and len(cats)
            and all(isinstance(c, str) for c in cats)]
        self.matrix = getattr(model, "decision_matrix_", None)
        # cost variables, or the C_FP/C_FN/C_TP/C_TN columns of a matrix of cost rows
        self.cost_names = cost_column_names(self.matrix)
        self.case_rule = (self.matrix is not None and hasattr(model, "get_tree_view")
                          and model.get_tree_view().case_rule)
        self.target = target
        self.target_given = target is not None
        self.keep = keep
        self.confidence = confidence
        self.node_confidence = None  # (margin, confidence) per node id, drawn once
        self.name = getattr(model, "target_name_", None) or "target"
        self.with_target = None  # decided on the first chunk
        self.totals = None
        self.seen_warnings = {}
        if confidence and self.matrix is None:
            raise ValueError("confidence=True needs a model fitted with a decision matrix")
        if confidence and self.case_rule:
            raise ValueError(
                "confidence=True gives the margin and confidence of a leaf's one decision; "
                'this model decides by the case rule (decision_rule="case"), where every '
                "case decides with its own costs"
            )

    def _check_numbers(self, X, label, first):
        """Name the first cell of text in a column that was numeric at fit time (the
        model would only say that the column is no longer numeric)."""
        for name in self.numeric:
            col = X[name]
            if pd.api.types.is_numeric_dtype(col.dtype):
                continue
            text = col.notna().to_numpy() & pd.to_numeric(col, errors="coerce").isna().to_numpy()
            if text.any():
                k = int(np.argmax(text))
                raise TypeError(
                    f"{label}: column {name!r} was numeric at fit time, but data row "
                    f"{first + k + 1:,} holds the text {col.iloc[k]!r}"
                    + (f" ({int(text.sum())} such rows in this chunk)" if text.sum() > 1 else "")
                )

    def _require(self, chunk, columns, label, option=None):
        message = missing_columns(chunk, columns, label, option)
        if message:
            raise ValueError(message)

    def _target_of(self, chunk, label, first):
        """The chunk's target column, None for decisions only (as on the first chunk)."""
        target = self.target
        if target is None and self.with_target is None:
            if self.name in chunk.columns and getattr(self.model, "target_name_", None):
                target = self.target = self.name
        if target is None:
            self.with_target = False
            return None
        if self.target_given:
            self._require(chunk, [target], label, self.args["target"])
        elif target not in chunk.columns:
            raise ValueError(f"{label} lacks the target column {target!r}, which the first "
                             "chunk has")
        col = chunk[target]
        empty = _is_empty_column(col)
        if self.with_target is None:
            self.with_target = not empty
            if empty:
                return None
        if not self.with_target:
            if not empty:
                raise ValueError(
                    f"{label}: the target column {target!r} has values, but it is empty "
                    "in the first chunk (decisions only); give the target for every row "
                    "for profit figures, or leave the column empty in every row"
                )
            return None
        if col.isna().any():
            raise ValueError(
                f"{label}: the target column {target!r} has {int(col.isna().sum())} missing "
                f"values of {len(col)} (first at data row "
                f"{first + int(np.argmax(col.isna().to_numpy())) + 1:,}); give the target "
                "for every row for profit figures, or leave the column out (or empty) for "
                "decisions only"
            )
        m = self.matrix
        if m is not None and not m.is_interval and col.dtype.kind in "iufb" and all(
                isinstance(v, str) for v in m.levels):
            # a file holds text: the levels "1" and "True" of a model are the text pandas
            # read as the numbers and booleans 1 and True (refused as not levels)
            col = col.astype(str)
        return col

    def score(self, chunk, first, k, chunk_size):
        """The rows to write for one chunk (its summary sums added to the totals)."""
        label = self.where
        if k > 1 or len(chunk) >= chunk_size:  # a file of several chunks
            label = f"{self.where}, chunk {k} (from data row {first + 1:,})"
        self._require(chunk, self.features, label)
        if self.keep:
            self._require(chunk, self.keep, label, self.args["keep"])
        X = chunk[self.features]
        self._check_numbers(X, label, first)
        costs = None
        if self.cost_names and set(self.cost_names) <= set(chunk.columns):
            costs = chunk[self.cost_names]
        y = self._target_of(chunk, label, first)
        m = self.matrix
        if m is not None and costs is None and self.cost_names and (
                self.case_rule or y is not None):
            why = ("the model decides by the case rule, so every row decides with its own "
                   "costs" if self.case_rule else "they are needed for the computed profit "
                   "(leave the target out for decisions only)")
            raise ValueError(f"{label} lacks the cost column(s) {self.cost_names}: "
                             f"{why}")
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                if m is None:
                    cases = _plain_cases(self.model, X, self.name)
                    if self.totals is None:
                        self.totals = _PlainTotals(self.model._is_classifier, self.name,
                                                   getattr(self.model, "classes_", None))
                    self.totals.add(cases.iloc[:, 0].to_numpy(), y, first)
                else:
                    if self.confidence and self.node_confidence is None:
                        # every leaf's bootstrap confidence drawn once, not once a chunk
                        self.node_confidence = self.model._node_confidence()
                    # one walk: the leaves that decide also carry MARGIN_/CONF_
                    result = self.model._decide(
                        X, y, costs=costs,
                        confidence=self.confidence, node_confidence=self.node_confidence)
                    if self.totals is None:
                        self.totals = SummaryTotals()
                    self.totals.add(result)
                    cases = result.cases
        except (ValueError, TypeError) as exc:
            raise reworded(exc, f"{label}: {exc}") from exc
        for w in caught:  # one warning of each kind for the whole file, not one per chunk
            if w.category not in self.seen_warnings:
                self.seen_warnings[w.category] = w
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        if self.keep:
            clash = [c for c in self.keep if c in cases.columns]
            if clash:
                raise ValueError(
                    f"{self.args['keep']} names the column(s) {clash!r}, which the scored "
                    "output has too; rename them in the data (two columns of one name "
                    "could not be told apart)"
                )
            cases = pd.concat([chunk[self.keep], cases], axis=1)
        return cases


def score_file(model, data, output=None, *, target=None, keep=None, chunk_size=100_000,
               sep=",", confidence=False, verbose=None):
    """Score a data file of any size chunk by chunk, writing the decisions as it goes.

    The file is read in chunks (CSV by ``chunk_size`` rows, Parquet by batches of its
    row groups), so memory holds one chunk whatever the file's size. Every chunk gets
    the checks of the whole file (the model's input columns, its cost columns, the
    target; an error names the chunk's first data row), is decided by the model's
    ``decide`` (``predict``/``predict_proba`` for a tree without a decision matrix) and
    its rows are written at once; the summary is summed chunk by chunk and equals the
    one of ``model.decide`` on the whole file (to rounding). The output is written to a
    temporary file beside it and renamed into place when complete: a failed or
    interrupted run leaves no partial output and an existing file untouched.

    Parameters
    ----------
    model : fitted ProfitTreeClassifier or ProfitTreeRegressor
        The tree that scores (for instance from :func:`dtdecide.load`; for a fitted
        :class:`~dtdecide.policy.PolicyTree`, its ``profit_tree_``).
    data : str or Path
        The cases: ``.csv``, ``.csv.gz``, ``.txt``, ``.parquet``/``.pq`` (read by row
        groups; a stored index such as a client id is kept) or ``.xlsx`` (read whole:
        Excel files are small). Parquet and Excel need the ``io`` extra. A CSV column
        that the model took as categories of text (codes such as ``"01"``) is read as
        text. Column names must be distinct.
    output : str, Path or text stream, default=None
        Where the scored rows go: a ``.csv`` (``.csv.gz``: compressed),
        ``.parquet``/``.pq`` or ``.xlsx`` path (its folder is created), or an open text
        stream for CSV (written as it goes, not atomically). None writes nothing and
        returns the summary only. A Parquet output takes its column types from the first
        chunk; a ``keep`` column empty in every row of it is written as text.
    target : str, default=None
        The target column, for the computed profit figures (``CP_``, ``BP_``, ``ROI_``)
        and the realised summary. None uses the model's target name when the file has
        that column. A target column empty in every row of the first chunk gives
        decisions only (it must then be empty in every chunk).
    keep : list of str, default=None
        Columns of the data copied in front of the scored columns (an id, say).
    chunk_size : int, default=100_000
        Rows per chunk.
    sep : str, default=","
        Field separator of a CSV file.
    confidence : bool, default=False
        Add ``MARGIN_`` and ``CONF_`` (see the tree's ``decide``); leaf rule only.
    verbose : int, default=None
        1 shows a progress bar with the rows scored and the rows per second (where
        the package's ``progress`` setting allows: a terminal or a notebook by
        default); None takes the package default (:func:`dtdecide.get_config`).

    Returns
    -------
    pandas.Series
        The summary of every scored row (as ``model.decide(X, y).summary``; for a tree
        without a decision matrix ``n_cases`` and, with a target,
        ``misclassification_rate`` or ``average_squared_error``).

    Raises
    ------
    ValueError
        When a chunk lacks a column, holds a value the model refuses, or has missing
        targets; the message names the file and the chunk's first data row.
    FileNotFoundError
        When ``data`` does not exist.

    See Also
    --------
    dtdecide.ProfitTreeClassifier.decide : Scoring of data in memory.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np, pandas as pd
    >>> from dtdecide import DecisionMatrix, ProfitTreeClassifier
    >>> from dtdecide.export import score_file
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame({"age": rng.integers(20, 70, 500)})
    >>> y = np.where((X["age"] > 50) & (rng.random(500) < 0.7), "yes", "no")
    >>> m = DecisionMatrix({"call": [20, -2], "skip": [0, 0]}, levels=["yes", "no"])
    >>> tree = ProfitTreeClassifier(decision_matrix=m, max_depth=2).fit(X, y)
    >>> folder = tempfile.mkdtemp()
    >>> X.assign(y=y).to_csv(os.path.join(folder, "cases.csv"), index=False)
    >>> summary = score_file(tree, os.path.join(folder, "cases.csv"),
    ...                      os.path.join(folder, "scored.csv"), target="y", chunk_size=200)
    >>> int(summary["n_cases"]), round(float(summary["total_profit"]), 2)
    (500, 2766.0)
    >>> pd.read_csv(os.path.join(folder, "scored.csv")).columns.tolist()
    ['D_target', 'EP_target', 'CP_target', 'BP_target']
    """
    return _score_file(model, data, output, target=target, keep=keep,
                       chunk_size=chunk_size, sep=sep, confidence=confidence,
                       verbose=verbose)


def _score_file(model, data, output=None, *, target=None, keep=None, chunk_size=100_000,
                sep=",", confidence=False, verbose=None, args=None, on_chunk=None):
    """:func:`score_file`; ``args`` names the arguments in messages (the CLI's options),
    ``on_chunk(n_rows_so_far)`` is called after every chunk."""
    from sklearn.utils.validation import check_is_fitted

    from ..tree import ProfitTreeClassifier, ProfitTreeRegressor

    args = {**_ARGS, **(args or {})}
    if not isinstance(model, (ProfitTreeClassifier, ProfitTreeRegressor)):
        refuse_tree_holder(model, "model")
        raise TypeError("model must be a fitted ProfitTreeClassifier or ProfitTreeRegressor; "
                        f"got {type(model).__name__}")
    check_is_fitted(model, "tree_")
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer)) or (
            chunk_size < 1):
        raise ValueError(f"chunk_size must be a positive int; got {chunk_size!r}")
    if not isinstance(sep, str) or len(sep) != 1:
        raise ValueError(f"sep must be one character; got {sep!r}")
    if not isinstance(data, (str, os.PathLike)):
        raise TypeError(
            f"data must be the path of a CSV, Parquet or Excel file; got "
            f"{type(data).__name__}"
            + (" (score a DataFrame in memory with the model's decide or predict)"
               if isinstance(data, pd.DataFrame) else "")
        )
    if output is not None and not isinstance(output, (str, os.PathLike)) and \
            not hasattr(output, "write"):
        raise TypeError(f"output must be a path, a writable text file or None; got "
                        f"{type(output).__name__}")
    if not isinstance(confidence, (bool, np.bool_)):
        raise TypeError(f"confidence must be True or False; got {confidence!r}")
    if target is not None and not isinstance(target, str):
        raise TypeError(f"{args['target']} must be the name of a column (a str) or None; "
                        f"got {target!r}")
    if keep is not None:
        if isinstance(keep, str):
            keep = [keep]
        elif not np.iterable(keep):
            raise TypeError(f"keep must be a column name or a list of them; got {keep!r}")
        keep = list(keep)
        dup = sorted({str(c) for c in keep if keep.count(c) > 1})
        if dup:
            raise ValueError(f"{args['keep']} names the column(s) {shown_labels(dup)} more "
                             "than once")
    where = f"{args['data']} {str(data)!r}"
    scorer = _Scorer(model, target=target, keep=keep, confidence=bool(confidence),
                     where=where, args=args)
    chunks, n_rows = _open_input(data, sep, int(chunk_size), where, scorer.text_columns)

    out_kind = None
    atomic = None
    if output is not None and not hasattr(output, "write"):
        out_kind = _kind_of(output, args["output"])
        _need_engine(out_kind, output, args["output"])
        if Path(output).exists() and Path(data).exists() and os.path.samefile(output, data):
            raise ValueError(
                f"{args['output']} {str(output)!r} is the {args['data']} itself; write the "
                "scored rows to another file (the data would be replaced)"
            )
        atomic = AtomicFile(output, args["output"])
    elif output is not None:
        out_kind = "csv"
    sink = None
    done = 0
    try:
        with progress_bar(total=n_rows, desc="scoring", unit="rows", unit_scale=True,
                          verbose=verbose) as bar:
            for k, chunk in enumerate(chunks, start=1):
                if len(chunk) == 0:
                    continue
                cases = scorer.score(chunk, done, k, int(chunk_size))
                if out_kind is not None:
                    if sink is None:
                        keep_index = not _is_default_index(cases.index, done)
                        extra = {}
                        if out_kind == "csv" and atomic and _gzipped(output):
                            extra = {"gzipped": True}
                        elif out_kind == "parquet":
                            extra = {"copied": keep or []}
                        sink = _SINKS[out_kind](atomic.tmp if atomic else output, keep_index,
                                                **extra)
                    try:
                        sink.write(cases)
                    except ValueError as exc:
                        raise ValueError(f"{where}, chunk {k} (from data row {done + 1:,}): "
                                         f"{exc}") from exc
                done += len(chunk)
                bar.update(len(chunk))
                if on_chunk is not None:
                    on_chunk(done)
        if scorer.totals is None:
            raise ValueError(f"{where} has no rows or no columns")
        if sink is not None:
            sink.close()
            sink = None
        if atomic is not None:
            atomic.commit()
            atomic = None
    finally:
        if sink is not None:
            with contextlib.suppress(Exception):
                sink.close()
        if atomic is not None:
            atomic.discard()
    if out_kind == "csv" and output is sys.stdout:
        output.flush()
    return scorer.totals.summary()
