"""Output files written whole or not at all.

:class:`AtomicFile` (and :func:`atomic_path`) hand out a temporary file beside the
destination, in the same folder, and rename it onto the destination only when the
writing succeeded: a failed or interrupted write leaves no partial file and an existing
file untouched. The destination is checked first, so that an impossible path (under a
file, or a folder) is an error naming it, not an operating-system error about a part of
it.
"""

import contextlib
import os
import secrets
from pathlib import Path

__all__ = ["AtomicFile", "atomic_path", "check_path", "input_file_error", "other_kind_hint"]

# the first bytes of the file types a data file may really be, whatever its suffix
_MAGIC = ((b"\x1f\x8b", "gzip", "a gzip-compressed file: name it .csv.gz"),
          (b"PAR1", "parquet", "a Parquet file: name it .parquet"),
          (b"PK\x03\x04", "excel", "a zip file, such as an Excel workbook: name it .xlsx"))


def check_path(path):
    """``path`` as a :class:`~pathlib.Path`; a :class:`TypeError` unless it is a str or
    path-like (the check of every export function that takes a file path)."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or path-like; got {type(path).__name__}")
    return Path(path)


def input_file_error(path, what):
    """The error to raise when ``path`` is not a file to read, else None.

    A folder is an :class:`IsADirectoryError` ("``<what>`` is a folder, not a file"), a
    missing path a :class:`FileNotFoundError` ("``<what>`` does not exist"); ``what``
    names the file for the user (e.g. ``"data file 'new.csv'"``).
    """
    path = Path(path)
    if path.is_dir():
        return IsADirectoryError(f"{what} is a folder, not a file")
    if not path.is_file() and not path.exists():
        return FileNotFoundError(f"{what} does not exist")
    return None


def other_kind_hint(path, kind):
    """`` (it is ...)`` when the first bytes of ``path`` say it is another type of file
    than its suffix's ``kind`` ("csv", "gzip", "parquet" or "excel"), else ``""``."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4)
    except OSError:
        return ""
    for magic, found, what in _MAGIC:
        if head.startswith(magic):
            return "" if found == kind else f" (it is {what})"
    if kind != "csv" and head:
        return " (it looks like a text file, such as a CSV file: name it .csv)"
    return ""


class AtomicFile:
    """A temporary file beside ``path``, renamed onto it by :meth:`commit` only.

    Created with the mode a new file would get (the umask applies), or the mode of
    the file it replaces. :meth:`discard` removes it (and the folders made for it).
    """

    def __init__(self, path, what):
        self.path = Path(path)
        self.made = []
        self.tmp = None
        parent = self.path.parent
        missing = []
        probe = parent
        while not probe.exists():
            missing.append(probe)
            probe = probe.parent
        if not probe.is_dir():
            raise NotADirectoryError(
                f"{what} {str(path)!r}: {str(probe)!r} is a file, not a folder"
            )
        if self.path.is_dir():
            raise IsADirectoryError(f"{what} {str(path)!r} is a folder")
        for folder in reversed(missing):
            folder.mkdir()
            self.made.append(folder)
        mode = 0o666
        if self.path.exists():
            mode = self.path.stat().st_mode & 0o777
        for _ in range(100):
            # the real suffix last: writers that choose their engine by it still can
            tmp = parent / f".{self.path.stem}.{secrets.token_hex(4)}.part{self.path.suffix}"
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
            except FileExistsError:
                continue
            except OSError as exc:  # a folder we may not write in: name the destination
                self.discard()
                raise type(exc)(exc.errno, f"{what} {str(path)!r} cannot be written in its "
                                f"folder ({exc.strerror})", str(path)) from None
            os.close(fd)
            break
        self.tmp = tmp
        if self.path.exists():
            os.chmod(tmp, mode)

    def commit(self):
        os.replace(self.tmp, self.path)

    def discard(self):
        if self.tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.tmp)
        for folder in reversed(self.made):
            with contextlib.suppress(OSError):
                folder.rmdir()


@contextlib.contextmanager
def atomic_path(path, what="path"):
    """Yield a temporary path beside ``path``, renamed onto it when the block succeeds.

    Missing folders are created (and removed again when the block fails).
    """
    atomic = AtomicFile(path, what)
    try:
        yield atomic.tmp
    except BaseException:
        atomic.discard()
        raise
    atomic.commit()
