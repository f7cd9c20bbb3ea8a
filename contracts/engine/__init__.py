"""Contracts ``step-loop`` and ``multi-stream``: the patterns serving engines drive H2D copies with.

An engine's model runner prepares every step's inputs on the host while the previous step's
forward pass is still queued on the GPU, and copies them with a mix of calls: persistent
``CpuGpuBuffer``\\ s refilled through ``.np`` and uploaded with ``copy_to_gpu(n)``, lists (one
value or one block-table row per request), numpy arrays the host overwrites in place the
moment the call returns, a *fresh* pinned tensor every step, and ``out=`` into persistent
device tensors that a CUDA graph reads. Sizes change every step. Copies run on the current
stream, on a side copy stream, or on a stream per thread.

``step-loop`` (:func:`check_step_loop`) runs such a loop and asserts:

- every step's device inputs, as the consumer read them on its stream (after the
  documented event wait for a side copy stream), equal what the host meant at that step
  (the loop orders the device as an engine must: the copy stream waits for the event after
  the previous step's consumer before overwriting static device tensors and a buffer's
  ``.gpu``);
- the calls never wait for the stream, judged by the stream's own state: a step is judged when
  the previous step's queued forward pass (calibrated spin work, ten times the host's warm
  step) is still running as its calls begin; the calls waited if it had finished when they
  returned. One such step is a suspicion (a preempted host looks the same): the next forward
  pass is queued with four times the work, and only a second judged step in a row that
  outlasts it fails the contract, and ends the loop at once. A step whose preparation
  outlasted the work is not judged, and more work is queued from then on.
  The only waits are the documented ones, made by the loop itself: before the host
  overwrites a buffer's ``.cpu``, it waits for the event recorded after that buffer's last
  copy (docs/reference.md: a pinned source may be read after the call returns);
- at quiescence nothing is retained: every fresh host input and every dropped buffer of
  every step is garbage (a weak reference to it is dead after the target's
  ``empty_cache`` and a garbage collection), and pinned host and device bytes are back at
  their reading after the warm-up steps.

``multi-stream`` (:func:`check_streams`) replays a schedule of calls, each on one of three
streams, some behind spin work on a stream, some with their host source overwritten right
after the call, and checks every result after synchronising: a staging pool that reuses
memory by an event recorded on the wrong stream, or a copy issued on another stream than
the current one, corrupts a result only under such an interleaving.
:func:`prop_multi_stream` draws the schedules, so shrinking gives the smallest
interleaving that breaks.

On a CPU-only machine both run with streams and events simulated by nothing (every stream
is the host, every wait returns at once): the values, the host overwrites, fresh inputs
and the retention checks still run, so CI checks the contracts' own logic and the mutants
that break it; the timing and byte checks need CUDA.

The modules: streams and their stand-ins on the host (``streams``), one engine's loop and
its steps (``loop``), the step-loop contract (``step_loop``) and the multi-stream contract
(``multi_stream``). This package re-exports every public name.
"""

from .loop import _Loop as _Loop  # re-exported: tests/meta/test_timed.py judges a loop's state alone
from .multi_stream import (
    MULTI_STREAM_KINDS,
    MULTI_STREAM_SIZES,
    check_streams,
    prop_multi_stream,
    prop_multi_stream_table,
)
from .step_loop import ENGINE_MODES, check_step_loop, prop_step_loop, prop_step_loop_fresh, step_loop_plan
from .streams import StreamSet

__all__ = [
    "ENGINE_MODES",
    "MULTI_STREAM_KINDS",
    "MULTI_STREAM_SIZES",
    "StreamSet",
    "check_step_loop",
    "check_streams",
    "prop_multi_stream",
    "prop_multi_stream_table",
    "prop_step_loop",
    "prop_step_loop_fresh",
    "step_loop_plan",
]
