"""Where the Dask fit keeps its binned partitions: worker memory or worker disk.

Layer 4 (backends) of :mod:`dtdecide.tree` (``_backends``); see the architecture page.

The Dask fit (:mod:`dtdecide.tree._backends._dask`) bins every partition once and then passes over
the binned partitions once per level. By default (``"memory"``) the binned partitions
are persisted in the workers' memory, so a worker holds all of its partitions' binned
rows at once: its memory grows with the data. With ``"disk"`` each binned partition is
written once, as the raw buffers of its arrays, to a file on the disk of the worker that
built it; every later pass maps that file into memory for the time of one task and
unmaps it afterwards, and the rows' node ids between levels go to a small file beside it.
A worker then holds at once only the partitions it is working on (one per thread) and the
histograms: its memory is bounded by the partition size, not by the data size.

The choice is Dask configuration (read on the client when ``fit`` starts)::

    dtdecide.binned-storage: "auto" | "memory" | "disk"      (default "auto")
    dtdecide.binned-directory: a folder, or None (default)

``"auto"`` picks ``"disk"`` when the binned partitions (estimated from the rows, inputs
and bin widths) would take more than half of the memory the workers may use (the sum of
the workers' ``memory_limit`` on a distributed cluster; the machine's available memory
with a local scheduler), else ``"memory"``. ``binned-directory`` None writes under each
worker's own local directory (``distributed``'s ``local_directory``), else under Dask's
``temporary-directory`` or the system's temporary folder; every fit uses a fresh
sub-folder that is removed when the fit ends, also when it fails. The tree is the same
whichever storage holds the partitions: the same arrays are read by the same kernels.
"""

import contextlib
import mmap
import os
import pickle
import shutil
import tempfile
import uuid

import numpy as np

STORAGE_KEY = "dtdecide.binned-storage"
DIRECTORY_KEY = "dtdecide.binned-directory"
_STORAGES = ("auto", "memory", "disk")
_ALIGN = 64  # byte alignment of every array's buffer in a partition file


def storage_options(dask):
    """``(storage, directory)`` from the Dask configuration, checked."""
    storage = dask.config.get(STORAGE_KEY, "auto")
    if storage not in _STORAGES:
        raise ValueError(
            f"Dask configuration {STORAGE_KEY!r} must be one of {_STORAGES}; got {storage!r}"
        )
    directory = dask.config.get(DIRECTORY_KEY, None)
    if directory is not None and not isinstance(directory, (str, os.PathLike)):
        raise TypeError(
            f"Dask configuration {DIRECTORY_KEY!r} must be a folder path or None; got "
            f"{type(directory).__name__}"
        )
    return storage, None if directory is None else os.fspath(directory)


def _client(dask):
    """The ``distributed`` client that runs ``dask.compute`` now, or None."""
    try:
        scheduler = dask.base.get_scheduler()
    except Exception:  # pragma: no cover - defensive: no scheduler resolvable
        return None
    client = getattr(scheduler, "__self__", None)
    if client is not None and type(client).__name__ == "Client" and hasattr(client, "run"):
        return client
    return None


def _memory_available(dask):
    """Bytes the binned partitions may use: the workers' limits or the free memory."""
    client = _client(dask)
    if client is not None:
        workers = client.scheduler_info().get("workers", {}).values()
        limits = [w.get("memory_limit") or 0 for w in workers]
        if limits and all(limit > 0 for limit in limits):
            return float(sum(limits))
        return None  # a worker without a limit: no bound known
    try:
        import psutil
    except ImportError:  # pragma: no cover - psutil comes with distributed
        return None
    return float(psutil.virtual_memory().available)


def binned_nbytes(n_rows, n_features, bin_itemsize, n_row_floats):
    """Estimated bytes of the binned partitions (inputs, node ids and per-row floats)."""
    return float(n_rows) * (n_features * bin_itemsize + 8 * (2 + n_row_floats))


def choose_storage(dask, storage, nbytes):
    """``"memory"`` or ``"disk"`` for the configured ``storage`` and estimated bytes."""
    if storage != "auto":
        return storage
    available = _memory_available(dask)
    return "disk" if available is not None and nbytes > 0.5 * available else "memory"


def new_folder_name():
    """The name of one fit's sub-folder (unique)."""
    return f"dtdecide-binned-{uuid.uuid4().hex}"


def _base_directories(directory, worker=None):
    """Where this process writes (first) and every folder it may have written under.

    ``worker``: the ``distributed`` worker this runs on, when known (``client.run``
    passes it; inside a task :func:`distributed.get_worker` finds it).
    """
    if directory is not None:
        return [directory]
    bases = []
    if worker is None:
        try:
            from distributed import get_worker

            worker = get_worker()
        except (ImportError, ValueError):
            pass
    local = getattr(worker, "local_directory", None)
    if local:
        bases.append(local)
    try:
        import dask

        configured = dask.config.get("temporary-directory", None)
    except ImportError:  # pragma: no cover - only called from the Dask fit
        configured = None
    bases.append(configured or tempfile.gettempdir())
    return bases


def remove_folders(folder_name, directory, dask_worker=None):
    """Remove this fit's sub-folder from every base folder of this process."""
    for base in _base_directories(directory, dask_worker):
        shutil.rmtree(os.path.join(base, folder_name), ignore_errors=True)


def cleanup(dask, folder_name, directory):
    """Remove one fit's files on the client and on every worker (never raises)."""
    remove_folders(folder_name, directory)
    client = _client(dask)
    if client is not None:
        try:
            client.run(remove_folders, folder_name, directory)
        except Exception:  # pragma: no cover - a cluster gone away keeps its files
            pass


def writers(dask, parts):
    """The worker that wrote each persisted partition (None: no ``distributed`` client)."""
    if _client(dask) is None:
        return None
    return [getattr(h, "worker", None) for h in dask.compute(*parts)]


def on_worker(dask, worker):
    """A context whose tasks run on ``worker`` (where a partition's file is) if alive.

    A loose restriction: if that worker is gone, Dask runs the task elsewhere, where the
    file may be missing (:meth:`DiskPart.load` then names the configuration to change).
    """
    if worker is None:
        return contextlib.nullcontext()
    return dask.annotate(workers=[worker], allow_other_workers=True)


class DiskPart:
    """A binned partition written to the disk of the worker that built it.

    Holds only the file's path and the partition's row count; :meth:`load` maps the
    arrays back (read-only, no copy) for the time the caller keeps them.
    """

    def __init__(self, path, n, spans, payload, worker=None):
        self.path = path
        self.n = n
        self._spans = spans
        self._payload = payload
        self.worker = worker  # the distributed worker's address, None without one

    @classmethod
    def write(cls, part, folder_name, directory, k):
        """Write ``part`` (a binned partition object) and return its handle."""
        folder = os.path.join(_base_directories(directory)[0], folder_name, f"part-{k}")
        os.makedirs(folder, exist_ok=True)
        buffers = []
        payload = pickle.dumps(part, protocol=5, buffer_callback=buffers.append)
        path = os.path.join(folder, "binned.bin")
        spans = []
        with open(path, "wb") as f:
            for buffer in buffers:
                raw = buffer.raw()
                pad = -f.tell() % _ALIGN
                if pad:
                    f.write(b"\0" * pad)
                spans.append((f.tell(), raw.nbytes))
                f.write(raw)
        try:
            from distributed import get_worker

            worker = get_worker().address
        except (ImportError, ValueError):
            worker = None
        return cls(path, part.n, spans, payload, worker)

    @property
    def _node_path(self):
        return os.path.join(os.path.dirname(self.path), "node.npy")

    def load(self):
        """The partition object, its arrays mapped from the file (read-only)."""
        try:
            size = os.path.getsize(self.path)
        except FileNotFoundError:
            raise FileNotFoundError(
                f"binned partition file {self.path} is not on this worker's disk; set "
                f"the Dask configuration {DIRECTORY_KEY!r} to a folder every worker "
                f"reads, or {STORAGE_KEY!r} to 'memory'"
            ) from None
        if size:
            with open(self.path, "rb") as f:
                view = memoryview(mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ))
            buffers = [view[a:a + n] for a, n in self._spans]
        else:
            buffers = [b"" for _ in self._spans]
        part = pickle.loads(self._payload, buffers=buffers)
        if os.path.exists(self._node_path):
            part.node = np.load(self._node_path, mmap_mode="r")
        part.save_node = self.save_node
        return part

    def save_node(self, node):
        """Keep the rows' node ids for the next level (int32: node ids are < 2**31)."""
        tmp = self._node_path + ".tmp.npy"
        np.save(tmp, np.asarray(node, dtype=np.int32))
        os.replace(tmp, self._node_path)
