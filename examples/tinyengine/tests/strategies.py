"""The engine's own Hypothesis strategies: a module named ``strategies``, next to the kit's ``h2d_contracts.strategies``."""

from __future__ import annotations

from hypothesis import strategies as st

#: A decode step's token ids for a batch of up to 64 requests (vocabulary of 32,000).
token_ids: st.SearchStrategy[list[int]] = st.lists(st.integers(0, 31_999), min_size=1, max_size=64)
