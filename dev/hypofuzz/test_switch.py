"""HypoFuzz 25.11.1 cannot switch between tests that take fixtures (no h2d-contracts code involved).

    pip install hypofuzz==25.11.1
    hypothesis fuzz -n 1 --no-dashboard -- dev/hypofuzz/test_switch.py -p no:h2d_contracts -p no:xdist

Seen on 2026-12-02 with pytest 8.3.5 and 9.2.0: the worker fuzzes its first test, then on
switching to the next one fails in ``FuzzTarget._enter_fixtures`` with ``AssertionError: The
fixture value for "thing" is not available`` (pytest's request keeps the fixture definitions
of its first setup, whose values HypoFuzz's teardown has dropped). With Hypothesis 6.158 or
later the worker also fails on the first failure it finds (``AttributeError:
'ConjectureResult' object has no attribute 'slice_comments'``: Hypothesis renamed it
``span_comments`` in 6.158.0). ``pytest dev/hypofuzz/test_switch.py`` itself passes.
"""

import pytest
from hypothesis import given
from hypothesis import strategies as st


@pytest.fixture(scope="session")
def thing():
    return 3


@given(x=st.integers(0, 10**6))
def test_first(thing, x):
    assert x != -1


@given(x=st.integers(0, 10**6))
def test_second(thing, x):
    assert x != -2
