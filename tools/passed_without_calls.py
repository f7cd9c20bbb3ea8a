"""Which tests a junit XML reports as passed that never called the target, by an independent call log.

Usage: python tools/passed_without_calls.py JUNIT.xml CALLS.log

``CALLS.log`` is what ``tests/meta/logging_target.py`` wrote (one test id per call). Prints
the passed tests the log never names and exits 1 if there is any (the verdict's rule: a
test reported as passed called the target it reports on), else prints the counts and exits 0.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET


def _key(path: str, name: str) -> str:
    """``test_values.py::test_values[cpu]``: the file's name and the test's (the suite's file names are unique), so the
    checkout's ids, an installed suite's and the log's all meet."""
    return f"{path.replace(chr(92), '/').rsplit('/', 1)[-1]}::{name}"


def passed_tests(junit: str) -> list[str]:
    """Keys (:func:`_key`) of the testcases with no failure, error or skip."""
    keys = []
    for case in ET.parse(junit).getroot().iter("testcase"):
        if any(child.tag in ("failure", "error", "skipped") for child in case):
            continue
        module = case.get("classname", "").rsplit(".", 1)[-1]
        keys.append(_key(module + ".py", case.get("name", "")))
    return keys


def called_tests(log: str) -> set[str]:
    """Keys of the test ids in a call log (``path::name[params]`` a line)."""
    with open(log) as fh:
        ids = [line.strip() for line in fh if line.strip()]
    return {_key(*i.split("::", 1)) for i in ids if "::" in i}


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__)
        return 2
    passed, called = passed_tests(argv[0]), called_tests(argv[1])
    never = [t for t in passed if t not in called]
    print(f"{len(passed)} passed, {len(never)} of them never called the target (the log names {len(called)} tests)")
    for t in never:
        print(f"  passed without a call: {t}")
    return 1 if never else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
