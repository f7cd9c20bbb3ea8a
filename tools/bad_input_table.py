"""Try every bad-input kind of the catalogue against a target and write a Markdown table.

For each kind (contracts.errors.BAD_INPUT_KINDS) and each device here, draws a few
concrete calls from strategies.bad_inputs and records: the documented exception type,
what the target raised (type and message), and whether `out` stayed untouched.

Usage: python tools/bad_input_table.py [--h2d-impl reference] [--out reports/bad_inputs.md]
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import torch  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402

import h2d_contracts.strategies as hs  # noqa: E402
from h2d_contracts.contracts import load_target  # noqa: E402
from h2d_contracts.contracts._report import repro_call  # noqa: E402
from h2d_contracts.contracts.errors import BAD_INPUT_KINDS  # noqa: E402
from h2d_contracts.contracts.h2d import raw_storage  # noqa: E402


def probe(target, device: torch.device, kind: str, examples: int = 3) -> list[tuple[str, str, bool, str]]:
    seen: list[tuple[str, str, bool, str]] = []

    @settings(max_examples=examples, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(bad=hs.bad_inputs(device, kinds=(kind,)))
    def run(bad):
        out = bad.kwargs.get("out")
        # a meta out has no bytes to compare (out-on-meta)
        before = raw_storage(out) if isinstance(out, torch.Tensor) and out.layout == torch.strided and out.device.type != "meta" else None
        try:
            target.call(bad.data, bad.kwargs)
            raised, msg = "(no exception)", ""
        except Exception as exc:  # noqa: BLE001 - recording what was raised is the point
            raised, msg = type(exc).__name__, str(exc).splitlines()[0]
        untouched = before is None or torch.equal(before, raw_storage(out))
        seen.append((raised, msg, untouched, repro_call(bad.data, bad.kwargs)))

    run()
    return seen


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--h2d-impl", default="reference")
    ap.add_argument("--out", default="reports/bad_inputs.md")
    args = ap.parse_args()
    target = load_target(args.h2d_impl)
    devices = [torch.device("cpu")] + ([torch.device("cuda", 0)] if torch.cuda.is_available() else [])
    lines = [
        f"# Bad inputs against `{target.name}`",
        "",
        f"torch {torch.__version__}; devices: {', '.join(map(str, devices))}; {len(BAD_INPUT_KINDS)} kinds, 3 drawn calls each per device.",
        "`out untouched` compares the whole storage behind `out` before and after the failed call.",
        "",
        "| kind | device | documented | raised | out untouched | message (first call) | example call |",
        "|---|---|---|---|---|---|---|",
    ]
    bad_rows = 0
    for kind in sorted(BAD_INPUT_KINDS):
        for device in devices:
            seen = probe(target, device, kind)
            raised = sorted({r for r, _, _, _ in seen})
            untouched = all(u for _, _, u, _ in seen)
            ok = raised == [BAD_INPUT_KINDS[kind].__name__] and untouched
            bad_rows += not ok
            msg = seen[0][1].replace("|", "/")[:120]
            lines.append(f"| {kind} | {device} | {BAD_INPUT_KINDS[kind].__name__} | {', '.join(raised)}{'' if ok else ' **(mismatch)**'} | {'yes' if untouched else '**no**'} | {msg} | `{seen[0][3][:90].replace('|', '/')}` |")
    lines += ["", f"{len(BAD_INPUT_KINDS)} kinds; rows not matching the documented outcome: {bad_rows}."]
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    with open(args.out, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print("\n".join(lines[-1:]))
    return 1 if bad_rows else 0


if __name__ == "__main__":
    sys.exit(main())
