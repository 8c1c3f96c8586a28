"""dtdecide's native model format: a versioned zip of JSON and ``.npy`` arrays.

Nothing in a model file is executable. The file holds

- ``dtdecide-model.json``: the format tag and version, the dtdecide version that wrote
  it, and the model as a typed JSON tree (see below);
- ``arrays/<k>.npy``: every numeric, boolean, text or date ndarray, read back with
  ``numpy.load(..., allow_pickle=False)``.

The JSON tree is written by a generic walk of the model's state (the ``__dict__`` or
``__getstate__`` of each object), so plain parameters and fitted attributes round-trip
without format changes. Python ``None``, ``bool``, ``int``, ``str`` and finite floats are
JSON values; everything else is an object with a type tag ``"t"``: tuples, lists, dicts
(any hashable keys), sets, non-finite floats, numpy scalars, arrays (numeric ones in a
``.npy`` member, object arrays element by element), pandas timestamps, timedeltas, NaT
and NA, :class:`numpy.random.RandomState` states and the instances of an explicit
allow-list of data-holding classes (:data:`ALLOWED_CLASSES`): the package's estimators and
the value objects a fitted model holds, and the few scikit-learn estimators the models in
:mod:`dtdecide.models` contain. A class is stored by its allow-list key, never by an
import path taken from the file; loading creates it with ``cls.__new__`` and sets its
state (through the class's own ``__setstate__`` when it has one, which validates it).
Functions, classes, modules and any type outside the list are refused when saving, and
an unknown key or tag is refused when loading.

Shared objects (the same array or estimator reachable twice) are written once and
referenced by id (``{"t": "ref", "id": k}``), so identity survives the round trip.
"""

import contextlib
import io
import json
import math
import os
import zipfile
import zlib
from importlib import import_module

import numpy as np

__all__ = ["ALLOWED_CLASSES", "FORMAT_NAME", "FORMAT_VERSION", "read_model", "write_model"]

FORMAT_NAME = "dtdecide-model"
FORMAT_VERSION = 1
MANIFEST = "dtdecide-model.json"

#: allow-list key -> (module, class name). The key is what a file stores; it never names a
#: module to import from the file's own text. Add a class here when a fitted model starts
#: holding a new kind of object (and a round-trip test for it).
ALLOWED_CLASSES = {
    "DecisionMatrix": ("dtdecide.decision._matrix", "DecisionMatrix"),
    "DecisionEstimator": ("dtdecide.decision._estimator", "DecisionEstimator"),
    "ProfitTreeClassifier": ("dtdecide.tree", "ProfitTreeClassifier"),
    "ProfitTreeRegressor": ("dtdecide.tree", "ProfitTreeRegressor"),
    "TreeStructure": ("dtdecide.tree", "TreeStructure"),
    "FeatureEncoding": ("dtdecide.tree", "FeatureEncoding"),
    "DecisionStats": ("dtdecide.tree", "DecisionStats"),
    "BenefitWeightedLogisticRegression": (
        "dtdecide.models._benefit_lr", "BenefitWeightedLogisticRegression"
    ),
    "FlatCostSensitiveClassifier": ("dtdecide.models._hierarchical",
                                    "FlatCostSensitiveClassifier"),
    "HierarchicalCostSensitiveClassifier": ("dtdecide.models._hierarchical",
                                            "HierarchicalCostSensitiveClassifier"),
    "CostSensitiveNaiveBayes": ("dtdecide.models._naive_bayes", "CostSensitiveNaiveBayes"),
    # scikit-learn estimators held by dtdecide.models (numeric fitted state only)
    "sklearn.LogisticRegression": ("sklearn.linear_model", "LogisticRegression"),
    "sklearn.StandardScaler": ("sklearn.preprocessing", "StandardScaler"),
    "sklearn.Pipeline": ("sklearn.pipeline", "Pipeline"),
    "sklearn.RBFSampler": ("sklearn.kernel_approximation", "RBFSampler"),
    "sklearn.Nystroem": ("sklearn.kernel_approximation", "Nystroem"),
    # the guide of a guided profit tree (its guide_model parameter: unfitted, parameters
    # only, since the tree fits clones of it), and the preprocessing a guide pipeline
    # puts before its classifier (with StandardScaler and Pipeline above)
    "sklearn.HistGradientBoostingClassifier": ("sklearn.ensemble",
                                               "HistGradientBoostingClassifier"),
    "sklearn.ColumnTransformer": ("sklearn.compose", "ColumnTransformer"),
    "sklearn.OneHotEncoder": ("sklearn.preprocessing", "OneHotEncoder"),
    "sklearn.OrdinalEncoder": ("sklearn.preprocessing", "OrdinalEncoder"),
    "sklearn.SimpleImputer": ("sklearn.impute", "SimpleImputer"),
}

# ndarray kinds stored as .npy (never object arrays): bool, ints, floats, complex,
# bytes, text, datetime64, timedelta64
_NPY_KINDS = set("biufcSUMm")
#: NumPy scalar types a parameter may hold (stored by dtype, never by import path)
_NPY_TYPES = frozenset(np.dtype(c).type for c in "?bBhHiIlLqQefdgFD")
_MAX_ARRAY_MEMBERS = 1_000_000
#: the largest manifest (JSON) and array member read; a fitted tree's arrays are far
#: smaller, so a member declaring more is damaged or crafted, and refused before reading
_MAX_MANIFEST_BYTES = 256 * 2**20
_MAX_MEMBER_BYTES = 16 * 2**30
#: deflate cannot expand data by more than about 1032 times: a member declaring a larger
#: uncompressed size than that of its compressed bytes is refused before it is read
_MAX_DEFLATE_RATIO = 1100
_READ_BLOCK = 1 << 24
# what reading a damaged member can raise (a bad CRC, a broken deflate stream, a
# truncated archive, an encrypted or unknown-method member)
_ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError,
               NotImplementedError, RuntimeError)


class ModelFileError(ValueError):
    """A model file that cannot be read: another format or version, or damaged.

    :func:`~dtdecide.export.load` raises it (a ``ValueError``) with a message naming the
    file and what is wrong with it.

    Examples
    --------
    >>> import os, tempfile
    >>> from dtdecide.export import ModelFileError, load
    >>> path = os.path.join(tempfile.mkdtemp(), "model.dtdecide")
    >>> with open(path, "w") as f:
    ...     _ = f.write("age,job")
    >>> try:
    ...     load(path)
    ... except ModelFileError as exc:
    ...     print(str(exc).split(" holds ")[1])
    text (a CSV or other data file?), not a model file; a model file is written by dtdecide.export.save or 'dtdecide fit -o model.dtdecide'
    """


class UnsupportedObjectError(TypeError):
    """An object the native format cannot hold (the message names where it sits)."""


_CLASS_CACHE = {}
_KEY_OF = {}


def _allowed_class(key):
    if key not in _CLASS_CACHE:
        module, name = ALLOWED_CLASSES[key]
        _CLASS_CACHE[key] = getattr(import_module(module), name)
    return _CLASS_CACHE[key]


def _key_of(cls):
    """Allow-list key of exactly ``cls`` (subclasses are not allowed), or None."""
    if not _KEY_OF:
        _KEY_OF.update({_allowed_class(key): key for key in ALLOWED_CLASSES})
    return _KEY_OF.get(cls)


def _describe(obj):
    if isinstance(obj, type):
        return f"a class ({obj.__module__}.{obj.__qualname__})"
    cls = type(obj)
    name = f"{cls.__module__}.{cls.__qualname__}"
    if callable(obj) and not hasattr(obj, "get_params"):
        qual = getattr(obj, "__qualname__", None)
        mod = getattr(obj, "__module__", None)
        shown = f"{mod}.{qual}" if qual and mod else name
        return f"a function or other callable ({shown})"
    return f"an instance of {name}"


# ----------------------------------------------------------------------------- encoding
class _Encoder:
    def __init__(self):
        self.arrays = []  # (member name, ndarray)
        self.memo = {}  # id(obj) -> ref id
        self.keep = []  # keep memoised objects alive while encoding (ids stay unique)

    def _remember(self, obj):
        k = len(self.memo)
        self.memo[id(obj)] = k
        self.keep.append(obj)
        return k

    def encode(self, obj, where):
        if obj is None or type(obj) is bool or type(obj) is str:
            return obj
        if type(obj) is int:
            return obj
        if type(obj) is float:
            if math.isfinite(obj):
                return obj
            return {"t": "float", "v": repr(obj)}
        if id(obj) in self.memo:
            return {"t": "ref", "id": self.memo[id(obj)]}
        if type(obj) is tuple:
            return {"t": "tuple", "items": [self.encode(v, f"{where}[{i}]")
                                            for i, v in enumerate(obj)]}
        if type(obj) is list:
            k = self._remember(obj)
            return {"t": "list", "id": k,
                    "items": [self.encode(v, f"{where}[{i}]") for i, v in enumerate(obj)]}
        if type(obj) is dict:
            k = self._remember(obj)
            items = [[self.encode(key, f"{where} key {key!r}"),
                      self.encode(v, f"{where}[{key!r}]")] for key, v in obj.items()]
            return {"t": "dict", "id": k, "items": items}
        if type(obj) in (set, frozenset):
            items = sorted((self.encode(v, f"{where} item") for v in obj), key=json.dumps)
            return {"t": type(obj).__name__, "items": items}
        if isinstance(obj, np.ndarray) and type(obj) is np.ndarray:
            return self._array(obj, where)
        if isinstance(obj, np.generic):
            return self._scalar(obj, where)
        if isinstance(obj, type) and obj in _NPY_TYPES:
            # a NumPy scalar type as a parameter value (OneHotEncoder(dtype=np.float64))
            return {"t": "nptype", "dtype": np.dtype(obj).str}
        if type(obj).__module__.startswith("numpy") and isinstance(obj, np.dtype) \
                and obj.type in _NPY_TYPES:
            return {"t": "npdtype", "dtype": obj.str}
        if type(obj) is bytes:
            return {"t": "bytes", "hex": obj.hex()}
        if type(obj) is np.random.RandomState:
            return {"t": "randomstate", "state": self.encode(obj.get_state(), where)}
        pandas = self._pandas(obj, where)
        if pandas is not None:
            return pandas
        key = _key_of(type(obj))
        if key is None:
            raise UnsupportedObjectError(
                f"the dtdecide model format cannot hold {where}: it is {_describe(obj)}, "
                "which is not one of the data-holding classes the format knows "
                f"({', '.join(sorted(ALLOWED_CLASSES))}); save with format='joblib' "
                "(a pickle, which runs code when loaded) if you must keep it"
            )
        k = self._remember(obj)
        getstate = getattr(obj, "__getstate__", None)
        state = getstate() if getstate is not None else obj.__dict__
        if state is None:
            state = {}
        if not isinstance(state, dict) or not all(isinstance(s, str) for s in state):
            raise UnsupportedObjectError(
                f"the dtdecide model format cannot hold {where} ({key}): its state is not "
                "a dict of named attributes"
            )
        enc = {name: self.encode(v, f"{where}.{name}") for name, v in state.items()}
        return {"t": "object", "class": key, "id": k, "state": enc}

    def _array(self, arr, where):
        k = self._remember(arr)
        if arr.dtype.kind in _NPY_KINDS and not arr.dtype.hasobject and arr.dtype.fields is None:
            name = f"arrays/{len(self.arrays)}.npy"
            self.arrays.append((name, arr))
            return {"t": "ndarray", "id": k, "file": name}
        if arr.dtype == object:
            flat = arr.reshape(-1, order="C")
            items = [self.encode(v, f"{where}[{i}]") for i, v in enumerate(flat)]
            return {"t": "objarray", "id": k, "shape": list(arr.shape), "items": items}
        raise UnsupportedObjectError(
            f"the dtdecide model format cannot hold {where}: an array of dtype {arr.dtype}"
        )

    def _scalar(self, x, where):
        kind = x.dtype.kind
        if kind == "b":
            v = bool(x)
        elif kind in "iu":
            v = int(x)
        elif kind == "f":
            v = float(x)
            v = v if math.isfinite(v) else repr(v)
        elif kind == "c":
            v = [repr(float(x.real)), repr(float(x.imag))]
        elif kind in "US":
            v = str(x) if kind == "U" else x.tobytes().hex()
        elif kind in "Mm":
            v = str(x)
        else:
            raise UnsupportedObjectError(
                f"the dtdecide model format cannot hold {where}: a numpy scalar of dtype "
                f"{x.dtype}"
            )
        return {"t": "npscalar", "dtype": x.dtype.str, "v": v}

    def _pandas(self, obj, where):
        import pandas as pd

        if obj is pd.NaT:
            return {"t": "nat"}
        if obj is pd.NA:
            return {"t": "na"}
        if type(obj) is pd.Timestamp:
            tz = None if obj.tz is None else str(obj.tz)
            return {"t": "timestamp", "ns": int(obj.as_unit("ns").value), "tz": tz,
                    "unit": obj.unit}
        if type(obj) is pd.Timedelta:
            return {"t": "timedelta", "ns": int(obj.as_unit("ns").value), "unit": obj.unit}
        return None


# ----------------------------------------------------------------------------- decoding
class _Decoder:
    def __init__(self, arrays, path):
        self.arrays = arrays  # member name -> loader
        self.memo = {}
        self.path = path

    def fail(self, message):
        raise ModelFileError(f"model file {self.path}: {message}")

    def decode(self, node):
        if node is None or isinstance(node, (bool, int, str)):
            return node
        if isinstance(node, float):
            return node
        if isinstance(node, list):
            self.fail("malformed model data (an untagged list)")
        if not isinstance(node, dict) or "t" not in node:
            self.fail(f"malformed model data ({type(node).__name__} without a type tag)")
        tag = node["t"]
        handler = getattr(self, f"_d_{tag}", None) if isinstance(tag, str) else None
        if handler is None:
            self.fail(f"unknown entry type {tag!r}; the file was not written by this "
                      "dtdecide's save() or has been altered")
        try:
            return handler(node)
        except ModelFileError:
            raise
        except (KeyError, TypeError, ValueError, IndexError, OverflowError) as exc:
            self.fail(f"malformed {tag!r} entry ({type(exc).__name__}: {exc})")

    def _register(self, node, obj):
        k = node["id"]
        if not isinstance(k, int) or k in self.memo:
            self.fail(f"malformed object id {k!r}")
        self.memo[k] = obj
        return obj

    def _d_ref(self, node):
        k = node["id"]
        if not isinstance(k, int) or k not in self.memo:
            self.fail(f"reference to an unknown object id {k!r}")
        return self.memo[k]

    def _d_float(self, node):
        v = node["v"]
        if v not in ("nan", "inf", "-inf"):
            self.fail(f"bad float {v!r}")
        return float(v)

    def _d_tuple(self, node):
        return tuple(self.decode(v) for v in node["items"])

    def _d_list(self, node):
        out = self._register(node, [])
        out.extend(self.decode(v) for v in node["items"])
        return out

    def _d_dict(self, node):
        out = self._register(node, {})
        for pair in node["items"]:
            if not isinstance(pair, list) or len(pair) != 2:
                self.fail("malformed dict entry")
            out[self.decode(pair[0])] = self.decode(pair[1])
        return out

    def _d_set(self, node):
        return {self.decode(v) for v in node["items"]}

    def _d_frozenset(self, node):
        return frozenset(self.decode(v) for v in node["items"])

    def _d_bytes(self, node):
        return bytes.fromhex(node["hex"])

    def _d_ndarray(self, node):
        name = node["file"]
        if name not in self.arrays:
            self.fail(f"array member {name!r} is missing")
        return self._register(node, self.arrays[name]())

    def _d_objarray(self, node):
        shape = tuple(int(s) for s in node["shape"])
        items = node["items"]
        if math.prod(shape) != len(items):
            self.fail("object array size does not match its shape")
        out = np.empty(len(items), dtype=object)
        self._register(node, out)
        for i, v in enumerate(items):
            out[i] = self.decode(v)
        return out.reshape(shape)

    def _d_npscalar(self, node):
        dtype = np.dtype(node["dtype"])
        v = node["v"]
        if dtype.kind in _NPY_KINDS - set("cS") and not dtype.hasobject:
            if dtype.kind == "f" and isinstance(v, str):
                v = float(v)
            return np.array(v, dtype=dtype)[()]
        if dtype.kind == "c":
            return dtype.type(complex(float(v[0]), float(v[1])))
        if dtype.kind == "S":
            return np.array(bytes.fromhex(v), dtype=dtype)[()]
        self.fail(f"unsupported numpy scalar dtype {dtype}")

    def _d_nptype(self, node):
        kind = np.dtype(node["dtype"]).type
        if kind not in _NPY_TYPES:
            self.fail(f"unsupported numpy scalar type {node['dtype']!r}")
        return kind

    def _d_npdtype(self, node):
        return np.dtype(self._d_nptype(node))

    def _d_randomstate(self, node):
        rs = np.random.RandomState()
        rs.set_state(self.decode(node["state"]))
        return rs

    def _d_nat(self, node):
        import pandas as pd

        return pd.NaT

    def _d_na(self, node):
        import pandas as pd

        return pd.NA

    def _d_timestamp(self, node):
        import pandas as pd

        ts = pd.Timestamp(int(node["ns"]), unit="ns", tz="UTC" if node["tz"] else None)
        if node["tz"]:
            ts = ts.tz_convert(node["tz"])
        return ts.as_unit(node["unit"])

    def _d_timedelta(self, node):
        import pandas as pd

        return pd.Timedelta(int(node["ns"]), unit="ns").as_unit(node["unit"])

    def _d_object(self, node):
        key = node["class"]
        if key not in ALLOWED_CLASSES:
            self.fail(
                f"refusing to create {key!r}: not one of the data-holding classes the "
                f"dtdecide format allows ({', '.join(sorted(ALLOWED_CLASSES))})"
            )
        cls = _allowed_class(key)
        obj = self._register(node, cls.__new__(cls))
        state_node = node["state"]
        if not isinstance(state_node, dict):
            self.fail(f"malformed state of {key}")
        state = {}
        for name, v in state_node.items():
            state[name] = self.decode(v)
        setstate = getattr(cls, "__setstate__", None)
        if setstate is not None:
            setstate(obj, state)
        else:
            obj.__dict__.update(state)
        return obj


# ----------------------------------------------------------------------------- files
def write_model(model, path, *, dtdecide_version):
    """Write ``model`` to ``path`` in the native format (see the module docstring)."""
    enc = _Encoder()
    root = enc.encode(model, "model")
    manifest = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "dtdecide_version": dtdecide_version,
        "model_class": root.get("class") if isinstance(root, dict) else None,
        "arrays": [name for name, _ in enc.arrays],
        "model": root,
    }
    text = json.dumps(manifest, allow_nan=False, separators=(",", ":"))
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(MANIFEST, text)
        for name, arr in enc.arrays:
            buf = io.BytesIO()
            np.save(buf, arr, allow_pickle=False)
            zf.writestr(name, buf.getvalue())


def is_native_file(path):
    """Whether ``path`` is a zip that holds the native format's manifest."""
    try:
        with zipfile.ZipFile(path) as zf:
            return MANIFEST in zf.namelist()
    except (zipfile.BadZipFile, OSError, EOFError):
        return False


def _member_info(zf, name, shown, what, cap, archive_size):
    """The member's ZipInfo, its declared sizes checked before anything is read."""
    try:
        info = zf.getinfo(name)
    except KeyError:
        raise ModelFileError(f"model file {shown}: {what} is missing") from None
    if info.flag_bits & 0x1:
        raise ModelFileError(f"model file {shown}: {what} is encrypted")
    if info.compress_size > archive_size:
        raise ModelFileError(
            f"model file {shown}: {what} declares {info.compress_size:,} compressed bytes, "
            f"more than the whole file ({archive_size:,}); the file is damaged or truncated"
        )
    if info.file_size > cap:
        raise ModelFileError(
            f"model file {shown}: {what} declares {info.file_size:,} bytes, more than the "
            f"{cap:,} a model file's member may hold; the file is damaged or not a model"
        )
    limit = info.compress_size * _MAX_DEFLATE_RATIO + 1024
    if info.compress_type == zipfile.ZIP_STORED:
        limit = info.compress_size
    if info.file_size > limit:
        raise ModelFileError(
            f"model file {shown}: {what} declares {info.file_size:,} bytes from "
            f"{info.compress_size:,} stored bytes, which no compression gives; the file is "
            "damaged or crafted"
        )
    return info


def _read_exactly(fh, out, shown, what):
    """Fill the bytes of ``out`` from ``fh`` (no more is read)."""
    view = memoryview(out).cast("B")
    done = 0
    while done < len(view):
        n = fh.readinto(view[done:done + _READ_BLOCK])
        if not n:
            raise ModelFileError(
                f"model file {shown}: {what} ends after {done:,} of its {len(view):,} bytes; "
                "the file is damaged or truncated"
            )
        done += n


def _check_end(fh, shown, what):
    """Refuse a member with bytes after those it declares."""
    if fh.read(1):
        raise ModelFileError(f"model file {shown}: {what} is longer than declared")


@contextlib.contextmanager
def _reading_member(shown, what, errors):
    """Re-raise the ``errors`` (and the zip module's) of reading a member as a
    :class:`ModelFileError` naming the file and the member; our own pass through."""
    try:
        yield
    except ModelFileError:
        raise
    except (*errors, *_ZIP_ERRORS) as exc:
        raise ModelFileError(
            f"model file {shown}: {what} cannot be read ({type(exc).__name__}: {exc}); the "
            "file is damaged or truncated"
        ) from exc


def _read_manifest(zf, shown, archive_size):
    what = f"its {MANIFEST}"
    info = _member_info(zf, MANIFEST, shown, what, _MAX_MANIFEST_BYTES, archive_size)
    with _reading_member(shown, what, (UnicodeDecodeError, RecursionError)):
        with zf.open(info) as fh:
            data = bytearray(info.file_size)
            _read_exactly(fh, data, shown, what)
            _check_end(fh, shown, what)
        return json.loads(data.decode("utf-8"))


def _read_array(zf, name, shown, archive_size):
    """One ``.npy`` member; its header's shape and dtype are checked against the member's
    declared size (and that against its stored bytes and a cap) before the array is
    allocated, and the data are read straight into it (the member is never held twice)."""
    from numpy.lib import format as npy

    what = f"array member {name!r}"
    info = _member_info(zf, name, shown, what, _MAX_MEMBER_BYTES, archive_size)
    with _reading_member(shown, what, (MemoryError, OverflowError)):
        with zf.open(info) as fh:
            version = npy.read_magic(fh)
            if version == (1, 0):
                shape, fortran, dtype = npy.read_array_header_1_0(fh)
            elif version in ((2, 0), (3, 0)):
                shape, fortran, dtype = npy.read_array_header_2_0(fh) if version == (
                    2, 0) else npy._read_array_header(fh, version)
            else:
                raise ValueError(f"unknown .npy format version {version}")
            if dtype.hasobject:
                raise ValueError("an object array (refused: it would need a pickle)")
            header = fh.tell()
            count = math.prod(shape)
            nbytes = count * dtype.itemsize
            if header + nbytes != info.file_size:
                raise ModelFileError(
                    f"model file {shown}: {what} declares shape {tuple(shape)} of "
                    f"{dtype.str} ({nbytes:,} bytes), but the member holds "
                    f"{info.file_size - header:,} bytes of data; the file is damaged or "
                    "crafted"
                )
            out = np.empty(shape, dtype=dtype, order="F" if fortran else "C")
            if nbytes:
                _read_exactly(fh, out.reshape(-1, order="A").view(np.uint8), shown, what)
            _check_end(fh, shown, what)
        return out


def read_model(path, *, dtdecide_version):
    """Read a native model file; every problem is a :class:`ModelFileError` naming it."""
    shown = str(path)
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, EOFError, OSError) as exc:
        raise ModelFileError(
            f"model file {shown} is not a readable dtdecide model file (a zip archive is "
            f"expected; it may be truncated or of another kind): {exc}"
        ) from exc
    with zf:
        archive_size = os.path.getsize(path)
        names = set(zf.namelist())
        if MANIFEST not in names:
            raise ModelFileError(
                f"model file {shown} is a zip archive without {MANIFEST}: not a dtdecide "
                "model file"
            )
        manifest = _read_manifest(zf, shown, archive_size)
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT_NAME:
            raise ModelFileError(f"model file {shown} is not a dtdecide model file")
        version = manifest.get("format_version")
        written_by = manifest.get("dtdecide_version")
        if version != FORMAT_VERSION:
            raise ModelFileError(
                f"model file {shown} has format version {version!r} (written by dtdecide "
                f"{written_by}); this dtdecide ({dtdecide_version}) reads format version "
                f"{FORMAT_VERSION} only: load it with the release that wrote it, or refit"
            )
        if written_by != dtdecide_version:
            raise ModelFileError(
                f"model file {shown} was written by dtdecide {written_by}; this is dtdecide "
                f"{dtdecide_version}. A fitted model's state can differ between releases "
                "(a newer attribute it lacks would fail later, at decide), so it is refused: "
                f"refit the model with dtdecide {dtdecide_version}, or load it with dtdecide "
                f"{written_by}"
            )
        members = manifest.get("arrays", [])
        if not isinstance(members, list) or len(members) > _MAX_ARRAY_MEMBERS:
            raise ModelFileError(f"model file {shown}: malformed array list")

        def loader(name):
            return lambda: _read_array(zf, name, shown, archive_size)

        arrays = {name: loader(name) for name in members if isinstance(name, str)}
        decoder = _Decoder(arrays, shown)
        try:
            return decoder.decode(manifest.get("model"))
        except ModelFileError:
            raise
        except RecursionError as exc:
            raise ModelFileError(f"model file {shown}: model data nested too deeply") from exc
        except (TypeError, ValueError, AttributeError, KeyError) as exc:
            # an allow-listed class's own validation (e.g. TreeStructure) refused the state
            raise ModelFileError(f"model file {shown} holds an invalid model: {exc}") from exc
