"""Tampered and damaged native model files: a ModelFileError naming the file and the
member, never a raw error, and nothing allocated or read beyond what the member holds.

- one corrupted byte anywhere inside a compressed member (a broken deflate stream, a bad
  CRC, a damaged ``.npy`` header);
- an array member whose header declares a huge shape (checked against the member's size
  before anything is allocated);
- a member padded far beyond its array, or whose zip entry declares more bytes than its
  compressed data can give (refused before being read);
- and a valid file loads within a small multiple of its arrays' size.
"""

import io
import struct
import tracemalloc
import zipfile

import numpy as np
import pandas as pd
import pytest

from dtdecide import DecisionMatrix, ProfitTreeClassifier
from dtdecide.export import ModelFileError, load, save
from dtdecide.export._native import MANIFEST


@pytest.fixture(scope="module")
def tree():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"age": rng.integers(18, 80, 2000).astype(float),
                      "job": rng.choice(["admin", "tech", "sales"], 2000)})
    y = np.where(rng.random(2000) < 0.3, "yes", "no")
    m = DecisionMatrix({"call": [10.0, -1.0], "skip": [0.0, 0.0]}, levels=["yes", "no"])
    return ProfitTreeClassifier(decision_matrix=m, max_depth=6, min_samples_leaf=5).fit(X, y)


def _members(path):
    with zipfile.ZipFile(path) as zf:
        return {n: zf.read(n) for n in zf.namelist()}, zf.infolist()


def _write(path, members, compression=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(path, "w", compression=compression) as zf:
        for name, data in members.items():
            zf.writestr(name, data)


def _data_offset(path, info):
    raw = path.read_bytes()
    start = info.header_offset
    name_len, extra_len = struct.unpack("<HH", raw[start + 26:start + 30])
    return start + 30 + name_len + extra_len


def _largest_array(path):
    _, infos = _members(path)
    arrays = [i for i in infos if i.filename.startswith("arrays/")]
    return max(arrays, key=lambda i: i.compress_size)


@pytest.mark.parametrize("where", [0.0, 0.1, 0.3, 0.5, 0.7, 0.9])
def test_one_corrupted_byte_in_a_compressed_member(tree, tmp_path, where):
    path = save(tree, tmp_path / "m.dtdecide")
    info = _largest_array(path)
    raw = bytearray(path.read_bytes())
    at = _data_offset(path, info) + min(int(where * info.compress_size), info.compress_size - 1)
    raw[at] ^= 0x5A
    path.write_bytes(bytes(raw))
    with pytest.raises(ModelFileError) as err:
        load(path)
    assert "m.dtdecide" in str(err.value) and info.filename in str(err.value)


def test_one_corrupted_byte_in_the_manifest(tree, tmp_path):
    path = save(tree, tmp_path / "m.dtdecide")
    _, infos = _members(path)
    info = next(i for i in infos if i.filename == MANIFEST)
    raw = bytearray(path.read_bytes())
    raw[_data_offset(path, info) + info.compress_size // 2] ^= 0xFF
    path.write_bytes(bytes(raw))
    with pytest.raises(ModelFileError, match=r"m\.dtdecide.*dtdecide-model\.json"):
        load(path)


def _npy(arr):
    buf = io.BytesIO()
    np.save(buf, arr)
    return buf.getvalue()


def _with_header(data, shape):
    """The .npy bytes ``data`` with the shape in its header replaced (same length)."""
    head_len = struct.unpack("<H", data[8:10])[0]
    header = data[10:10 + head_len].decode("latin1")
    start = header.index("'shape': (") + len("'shape': (")
    end = header.index(")", start)
    new = header[:start] + shape + header[end:]
    new = new.rstrip("\n").rstrip(" ")
    new = new + " " * (head_len - 1 - len(new)) + "\n"
    assert len(new) == head_len
    return data[:10] + new.encode("latin1") + data[10 + head_len:]


@pytest.mark.parametrize("shape", ["10000000000000,", "4000000, 4000000", "99999999999999999999,"])
def test_a_huge_declared_shape_is_checked_before_allocating(tree, tmp_path, shape):
    path = save(tree, tmp_path / "m.dtdecide")
    members, _ = _members(path)
    name = _largest_array(path).filename
    members[name] = _with_header(members[name], shape)
    _write(path, members)
    tracemalloc.start()
    try:
        with pytest.raises(ModelFileError, match=rf"m\.dtdecide.*{name}.*declares shape"):
            load(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 50 * 2**20


def test_a_padded_member_is_not_read_whole(tree, tmp_path):
    path = save(tree, tmp_path / "m.dtdecide")
    members, _ = _members(path)
    name = _largest_array(path).filename
    members[name] = members[name] + bytes(64 * 2**20)  # 64 MiB of zeros after the array
    _write(path, members)
    tracemalloc.start()
    try:
        with pytest.raises(ModelFileError, match=rf"m\.dtdecide.*{name}.*holds"):
            load(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20  # far less than the padding


def _declare_size(path, name, size):
    """Rewrite the central directory's uncompressed size of member ``name``."""
    raw = bytearray(path.read_bytes())
    sig = b"PK\x01\x02"
    at = raw.find(sig)
    while at >= 0:
        name_len = struct.unpack("<H", raw[at + 28:at + 30])[0]
        if raw[at + 46:at + 46 + name_len].decode() == name:
            raw[at + 24:at + 28] = struct.pack("<I", size)
            break
        at = raw.find(sig, at + 4)
    path.write_bytes(bytes(raw))


@pytest.mark.parametrize("member", ["array", "manifest"])
def test_a_member_declaring_gigabytes_is_refused_unread(tree, tmp_path, member):
    path = save(tree, tmp_path / "m.dtdecide")
    name = _largest_array(path).filename if member == "array" else MANIFEST
    _declare_size(path, name, 0xFFFFFFF0)  # ~4 GiB from a few kB of compressed data
    with pytest.raises(ModelFileError, match=r"m\.dtdecide.*declares 4,294,967,280 bytes"):
        load(path)


def test_stored_member_sizes_must_agree(tree, tmp_path):
    path = save(tree, tmp_path / "m.dtdecide")
    members, _ = _members(path)
    _write(path, members, compression=zipfile.ZIP_STORED)
    assert load(path).get_n_leaves() == tree.get_n_leaves()  # a stored zip loads
    name = _largest_array(path).filename
    _declare_size(path, name, len(members[name]) + 100)
    with pytest.raises(ModelFileError, match=rf"{name}.*which no compression gives"):
        load(path)


def test_other_npy_damage(tree, tmp_path):
    path = save(tree, tmp_path / "m.dtdecide")
    members, _ = _members(path)
    name = _largest_array(path).filename
    bad = {
        "magic": b"NOTNUMPY" + members[name][8:],
        "version": members[name][:6] + b"\x09\x00" + members[name][8:],
        "truncated header": members[name][:12],
        "short data": members[name][:-8],
    }
    for what, data in bad.items():
        _write(path, {**members, name: data})
        with pytest.raises(ModelFileError, match=rf"m\.dtdecide.*{name}") as err:
            load(path)
        assert str(path) in str(err.value), what


def test_loading_needs_a_small_multiple_of_the_arrays(tmp_path):
    rng = np.random.default_rng(1)
    n = 20_000
    X = pd.DataFrame({f"x{j}": rng.random(n) for j in range(4)})
    y = rng.integers(0, 3, n)
    big = ProfitTreeClassifier(min_samples_leaf=1, min_samples_split=2, max_depth=30)
    big.fit(X, y)
    path = save(big, tmp_path / "big.dtdecide")
    with zipfile.ZipFile(path) as zf:
        arrays = sum(i.file_size for i in zf.infolist() if i.filename.startswith("arrays/"))
        manifest = zf.getinfo(MANIFEST).file_size
    assert arrays > 2**20
    tracemalloc.start()
    try:
        loaded = load(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert loaded.get_n_leaves() == big.get_n_leaves()
    print(f"peak {peak:,} arrays {arrays:,} manifest {manifest:,}")
    assert peak < 2.5 * arrays + 20 * manifest + 2**20, (peak, arrays, manifest)


def test_save_is_atomic_and_names_an_impossible_path(tree, tmp_path, monkeypatch):
    """save writes beside the file and renames it when complete: a failure while writing
    leaves the previous model file as it was; a path under a file names both."""
    import os

    from dtdecide.export import _native

    path = save(tree, tmp_path / "m.dtdecide")
    before = path.read_bytes()

    def broken(model, target, **kwargs):
        with open(target, "wb") as fh:
            fh.write(b"PK half a zip")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("dtdecide.export._persist.write_model", broken)
    with pytest.raises(OSError, match="No space left"):
        save(tree, path)
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["m.dtdecide"]
    monkeypatch.setattr("dtdecide.export._persist.write_model", _native.write_model)
    with pytest.raises(NotADirectoryError, match=r"m\.dtdecide.*is a file, not a folder"):
        save(tree, path / "again.dtdecide")
    with pytest.raises(IsADirectoryError, match="is a folder"):
        save(tree, tmp_path)
