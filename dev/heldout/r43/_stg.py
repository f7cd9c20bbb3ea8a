"""Plumbing for this round's ``_staging`` bugs (not a bug itself).

``staging_fork(tag, **methods)`` subclasses the reference ``StagingPool`` with the given methods (code
written in a bug module, rebound to the reference ``_staging`` globals with ``_common.rebind``) and binds
the subclass into a private fork as ``_staging.StagingPool``, so the fork's ``pool_for`` (and so its
``async_tensor_h2d``'s staging on CUDA) builds the buggy pools and its ``empty_staging_cache`` (the
target's ``empty_cache``) trims them. ``FakeClock`` is a simulated stream/event clock of the kind the
``StagingPool`` docstring describes ("tests pass a simulated one to check the policy on a CPU-only
machine"): events complete when their stream has run that far; an event never recorded reports
complete, as ``cudaEventQuery`` does.
"""

from __future__ import annotations

from h2d_contracts.h2d_impl import _staging as _ref_staging

from ._common import fork, rebind


def staging_fork(tag: str, **methods):
    sub = type(
        "StagingPool",
        (_ref_staging.StagingPool,),
        {k: rebind(v, _ref_staging) for k, v in methods.items()} | {"__module__": f"r43.{tag}"},
    )
    return fork(tag, _staging={"StagingPool": sub})


class FakeStream:
    def __init__(self, name: str) -> None:
        self.name, self.queued, self.ran = name, 0, 0

    def run_all(self) -> None:
        self.ran = self.queued


class FakeEvent:
    def __init__(self) -> None:
        self.stream, self.seq = None, 0

    def record(self, stream: FakeStream) -> None:
        stream.queued += 1
        self.stream, self.seq = stream, stream.queued

    def query(self) -> bool:
        return self.stream is None or self.stream.ran >= self.seq

    def synchronize(self) -> None:
        if self.stream is not None:
            self.stream.ran = max(self.stream.ran, self.seq)


class FakeClock:
    def __init__(self) -> None:
        self.streams = {"s0": FakeStream("s0"), "s1": FakeStream("s1")}
        self.current = "s0"

    def stream_key(self) -> int:
        return 10 + int(self.current[1:])

    def current_stream(self) -> FakeStream:
        return self.streams[self.current]

    def event(self) -> FakeEvent:
        return FakeEvent()
