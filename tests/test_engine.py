"""Contracts step-loop and multi-stream: engine step loops and interleavings over several streams (host and primary GPU)."""

from h2d_contracts.contracts import engine as P
from h2d_contracts.harness.suite import contract_test


def test_step_loop(target, device):
    P.prop_step_loop(target, device)


def test_step_loop_fresh(target, device):
    P.prop_step_loop_fresh(target, device)


def test_multi_stream_table(target, device):
    P.prop_multi_stream_table(target, device)


test_multi_stream = contract_test(P.prop_multi_stream)
