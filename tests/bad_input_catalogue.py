"""The runner of the bad-input catalogues (``tests/test_bad_input*.py``).

Each catalogue is a list of ``(id, call(f), exception type, patterns)``: ``call`` spoils
one thing of the module's fixture ``f``, and every pattern must be found in the message.
"""

import re

import pytest


def check_message(exc_info, patterns):
    """Assert that every pattern (a regular expression) is found in the message."""
    message = str(exc_info.value)
    missing = [p for p in patterns if not re.search(p, message)]
    assert not missing, f"message {message!r} lacks {missing}"


def catalogue_tests(cases):
    """``(test_bad_input, test_case_ids_are_unique)`` for a module's ``cases``."""

    @pytest.mark.parametrize("call, exc, patterns",
                             [pytest.param(c, e, p, id=i) for i, c, e, p in cases])
    def test_bad_input(f, call, exc, patterns):
        with pytest.raises(exc) as exc_info:
            call(f)
        check_message(exc_info, patterns)

    def test_case_ids_are_unique():
        ids = [case[0] for case in cases]
        assert len(ids) == len(set(ids))

    return test_bad_input, test_case_ids_are_unique
