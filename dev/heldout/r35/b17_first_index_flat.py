"""b17 (CPU): the first offending index of a range error is found with a flat ``argmax``.

The change: ``_host._first_index(mask)`` returns ``(int(mask.reshape(-1).to(torch.uint8).argmax()),)``
(a flat index) instead of ``torch.nonzero(mask)[0]`` (one index per dimension).

Why an engineer writes it: ``torch.nonzero`` materialises every offending index (a
million-element out-of-range payload allocates 8 MB of indices just to report the first);
``argmax`` over the mask returns the first maximum without building an index list.
For the 1-D inputs of the unit tests the result is identical.

What breaks: every refusal of a value must be a ``ValueError`` naming the argument
(bad-input contract; docs/reference.md). For data of two or more dimensions (or 0-d) the
flat index is used to index ``wide`` to quote the bad value in the message, and that
raises instead: ``async_tensor_h2d([[1, 300]], dtype=torch.uint8, device="cpu")`` raises
``IndexError`` (index 1 out of bounds for dimension 0 of size 1), a 2x2 case a
``RuntimeError`` (a 2-element row has no ``.item()``), ``async_tensor_h2d(300,
dtype=torch.uint8, device="cpu")`` ``IndexError`` (a 0-d tensor indexed) -- not ``ValueError``.
"""

from __future__ import annotations

import torch

from ._common import fork, fork_target


def _first_index(mask):
    return (int(mask.reshape(-1).to(torch.uint8).argmax()),)  # BUG: a flat index, used as a per-dimension one


def target():
    return fork_target("b17-first-index-flat", fork("b17", _host={"_first_index": _first_index}))
