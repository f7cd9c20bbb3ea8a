"""b08 (CPU): ``StagedWriteTensor.__init__`` decorated with ``@torch.inference_mode()``: ``.gpu`` is an inference tensor.

Where: ``StagedWriteTensor.__init__``.

Change: ``@torch.inference_mode()`` added above ``def __init__`` ("buffers never need
autograd; skip version counters"); the body is the reference's.

Why plausible: vLLM decorates model-runner methods with ``@torch.inference_mode()``, and the
staged tensors are made at start-up; an engineer puts the decorator on the constructor to
save autograd bookkeeping. Everything made inside, ``.gpu`` included, is an inference
tensor, and torch refuses an in-place update of an inference tensor outside inference
mode: every ``apply_write()`` made in a plain or ``no_grad`` context raises.

Promise broken: ``StagedWriteTensor``: "``apply_write()`` writes every staged write into
``.gpu``"; docs/contracts.md (Model Runner V2): "Tables ``prop_staged_in_contexts`` ... run a
short scenario of each class ... (a staged tensor written and applied) in the plain
context, then with construction and calls under ``torch.no_grad()``, ``torch.inference_mode()``
... the results must agree".

Smallest input: ``t = StagedWriteTensor(2, torch.int32, "cpu"); t.stage_write_elem(0, 5);
t.apply_write()`` (plain context).
Reference: ``.gpu`` = [5, 0].
Bug: ``RuntimeError: Inplace update to inference tensor outside InferenceMode is not allowed ...``
(torch 2.13 on the CPU raises after ``index_copy_`` has stored the values, so ``.gpu`` reads
[5, 0], but the call failed and the write stays staged: a second ``apply_write()`` raises
again). Under ``torch.inference_mode()`` the bug gives the right result.
"""

from __future__ import annotations

import torch

from ._bu import bu_fork, bu_target

TAG, SHORT = "b08", "b08_staged_init_inference_mode"


def classes():
    ns = bu_fork(TAG)
    cls = ns.StagedWriteTensor
    cls.__init__ = torch.inference_mode()(cls.__init__)  # BUG: @torch.inference_mode() on the constructor
    return ns


def target():
    return bu_target(TAG, SHORT, classes())
