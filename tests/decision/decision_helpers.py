"""Helpers shared by the decision tests."""

from dtdecide.decision import _engine, decide


def general_decide(*args, **kwargs):
    """``decide`` through the general chunk kernel (the reference of the fast paths)."""
    saved = _engine._FAST_KERNEL
    _engine._FAST_KERNEL = False
    try:
        return decide(*args, **kwargs)
    finally:
        _engine._FAST_KERNEL = saved
