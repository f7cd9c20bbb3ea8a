"""Summarise junit XML files into a short Markdown record (counts, skips with reasons, failures).

Usage: python tools/junit_summary.py OUT.md JUNIT.xml [JUNIT.xml ...] [--title TEXT]
"""

from __future__ import annotations

import datetime
import platform
import sys
import xml.etree.ElementTree as ET


def summarise(paths: list[str]) -> tuple[dict[str, int], list[str], list[str]]:
    counts = {"tests": 0, "passed": 0, "failed": 0, "errors": 0, "skipped": 0, "interrupted": 0}
    skips: list[str] = []
    failures: list[str] = []
    for path in paths:
        root = ET.parse(path).getroot()
        for case in root.iter("testcase"):
            if not case.get("name"):
                # pytest cut by SIGINT writes one nameless, empty testcase: a placeholder of the
                # interrupted run, not a test (at 8cdcd4f it was counted as passed)
                counts["interrupted"] += 1
                continue
            counts["tests"] += 1
            name = f"{case.get('classname')}::{case.get('name')}"
            if case.find("failure") is not None:
                counts["failed"] += 1
                failures.append(f"{name}: {(case.find('failure').get('message') or '').splitlines()[0][:200]}")
            elif case.find("error") is not None:
                counts["errors"] += 1
                failures.append(f"{name} (error): {(case.find('error').get('message') or '').splitlines()[0][:200]}")
            elif case.find("skipped") is not None:
                counts["skipped"] += 1
                skips.append(f"{name}: {case.find('skipped').get('message')}")
            else:
                counts["passed"] += 1
    return counts, skips, failures


def main(argv: list[str]) -> int:
    title = "test run"
    if "--title" in argv:
        i = argv.index("--title")
        title = argv[i + 1]
        argv = argv[:i] + argv[i + 2 :]
    out, paths = argv[0], argv[1:]
    counts, skips, failures = summarise(paths)
    try:
        import torch

        torch_line = f"torch {torch.__version__} (CUDA {torch.version.cuda})"
        gpus = (
            [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
            if torch.cuda.is_available()
            else []
        )
    except Exception as exc:  # noqa: BLE001
        torch_line, gpus = f"torch unavailable: {exc}", []
    lines = [
        f"# {title}",
        "",
        f"- date (UTC): {datetime.datetime.now(datetime.UTC).isoformat(timespec='seconds')}",
        f"- GPU: {', '.join(gpus) if gpus else 'none'} ({len(gpus)} device(s))",
        f"- {torch_line}; python {platform.python_version()}",
        f"- junit: {', '.join(p.split('/')[-1] for p in paths)}",
        "",
        f"**{counts['passed']} passed, {counts['failed']} failed, {counts['errors']} errors, {counts['skipped']} skipped** (of {counts['tests']})",
        "",
    ]
    if counts["interrupted"]:
        lines += [
            f"**INCOMPLETE**: {counts['interrupted']} of the files come from an interrupted run (a nameless placeholder testcase, not counted)",
            "",
        ]
    if failures:
        lines += ["## Failures", ""] + [f"- {f}" for f in failures] + [""]
    if skips:
        lines += ["## Skips (with reasons)", ""] + [f"- {s}" for s in skips] + [""]
    with open(out, "w") as fh:
        fh.write("\n".join(lines))
    print("\n".join(lines[:8]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
