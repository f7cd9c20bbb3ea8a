#!/usr/bin/env bash
# Mutation score of the contract suite on h2d_impl/ (issue 4, item 2), with mutmut 3.
#
#   bash dev/mutation.sh [REV]        # default REV: HEAD
#   MUTMUT_CHILDREN=2 bash dev/mutation.sh
#   MUTANTS='h2d_contracts.h2d_impl.buffer*' bash dev/mutation.sh   # only mutants whose
#       names match (mutmut's pattern); files get a "-subset" suffix
#   GPU_PACK=.gpu_carry/mutants.tgz bash dev/mutation.sh REV   # generate REV's mutants only and
#       pack them (with mutmut's trampoline package) for dev/gpu_mutation.py on a GPU runner
#   SUITE=contracts bash dev/mutation.sh   # the contract suite alone: the tests of the
#       reference's internals (tests/reference/ and tests/meta/, which never call --h2d-impl's
#       target) are --ignore'd, so the score says what the contracts catch in a target;
#       files get a "-contracts" suffix
#
# Measures a *committed* revision: `git archive REV` is unpacked into a scratch
# directory (so edits in progress in the working tree never leak into the numbers),
# and mutmut runs there with the [tool.mutmut] section of that revision's
# pyproject.toml (source h2d_impl/, the non-meta suite, --hypothesis-seed=0, the
# default Hypothesis profile). Writes into docs/records/mutation/ of the working tree:
#   results-<rev>.txt   every mutant and its status (`mutmut results --all true`)
#   survivors-<rev>.txt the diff of every surviving / untested mutant (`mutmut show`)
#   stats-<rev>.json    mutmut's own counts (`mutmut export-cicd-stats`)
#   run-<rev>.log       the command, versions and mutmut's final line
# Needs .venv with the test extras and mutmut (pip install mutmut==3.8.1).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
rev=$(git rev-parse --short=12 "${1:-HEAD}")
suite=${SUITE:-all}
suffix=""; [ "$suite" = contracts ] && suffix=-contracts
tag=$rev$suffix${MUTANTS:+-subset}
children=${MUTMUT_CHILDREN:-1}
# One OpenMP/MKL thread per worker: torch's thread pool is not fork-safe (workers hung
# in a futex) and the machine is shared.
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
. .venv/bin/activate
work=$(mktemp -d "${TMPDIR:-/tmp}/h2d-mutation-$rev-XXXX")
trap 'rm -rf "$work"' EXIT
git archive "$rev" | tar -x -C "$work"
# mutmut names a mutant by its file's path (h2d_impl/h2d.py -> h2d_impl.h2d) and its
# trampolines compare that with the function's __module__, which is h2d_contracts.h2d_impl.h2d
# (one namespace, issue 11). So mutate the wheel's layout: the subpackages moved under
# h2d_contracts/ as `pip install` puts them, and [tool.mutmut] rewritten to match.
python - "$work" "$suite" <<'PY'
import re, shutil, sys
from pathlib import Path
work, suite = Path(sys.argv[1]), sys.argv[2]
pkg = work / "h2d_contracts"
for name in ("h2d_impl", "harness", "contracts", "strategies", "tests"):
    shutil.move(str(work / name), str(pkg / name))
py = work / "pyproject.toml"
text = py.read_text()
copied = [f"h2d_contracts/{p.name}" for p in sorted(pkg.iterdir()) if p.name not in ("h2d_impl", "__pycache__")]
text, n1 = re.subn(r'^source_paths = .*$', 'source_paths = ["h2d_contracts/h2d_impl"]', text, count=1, flags=re.M)
text, n2 = re.subn(r'^also_copy = .*$', "also_copy = " + repr(["conftest.py", *copied, "examples"]).replace("'", '"'), text, count=1, flags=re.M)
text, n3 = re.subn(r'^pytest_add_cli_args_test_selection = .*$', 'pytest_add_cli_args_test_selection = ["h2d_contracts/tests"]', text, count=1, flags=re.M)
assert (n1, n2, n3) == (1, 1, 1), "[tool.mutmut] lacks source_paths, also_copy or pytest_add_cli_args_test_selection"
if suite == "contracts":
    # the contract suite alone: the reference's internal tests and the kit's meta-tests live in their folders
    ignores = '"--ignore=h2d_contracts/tests/reference", "--ignore=h2d_contracts/tests/meta"'
    text, n = re.subn(r'^(pytest_add_cli_args = \[.*)\]$', lambda m: f"{m.group(1)}, {ignores}]", text, count=1, flags=re.M)
    assert n == 1, "no pytest_add_cli_args line in [tool.mutmut]"
py.write_text(text)
PY
mkdir -p "$work/mutants/h2d_contracts"  # mutmut copies also_copy's single files into it
out=$root/docs/records/mutation
mkdir -p "$out"
log=$out/run-$tag.log
{
    echo "revision: $rev ($(git log -1 --format='%s' "$rev")); suite: $suite"
    echo "h2d_impl last changed in: $(git log -1 --format='%h %s' "$rev" -- h2d_impl)"
    echo "command: (cd <git archive $rev> && OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 mutmut run --max-children $children ${MUTANTS:-})"
    echo "mutmut $(python -c 'import importlib.metadata as m; print(m.version("mutmut"))'), pytest $(python -c 'import pytest; print(pytest.__version__)'), hypothesis $(python -c 'import hypothesis; print(hypothesis.__version__)'), torch $(python -c 'import torch; print(torch.__version__)'), python $(python -c 'import platform; print(platform.python_version())')"
    echo "config: $(python - "$work/pyproject.toml" <<'PY'
import sys, tomllib
print(tomllib.load(open(sys.argv[1], "rb"))["tool"]["mutmut"])
PY
)"
    echo "started: $(date -u +%FT%TZ)"
} > "$log"
cd "$work"
if [ -n "${GPU_PACK:-}" ]; then
    # Generate the mutants only and pack them for dev/gpu_mutation.py on a GPU runner
    # (the device half of h2d_impl/ runs only for a CUDA target): mutmut's own generation
    # step, then mutants/ (trampolined code + the suite) and the pure-Python mutmut package
    # the trampolines import (mutmut.mutation.trampoline needs only the standard library).
    python - <<'PY'
from mutmut.__main__ import copy_src_dir, copy_also_copy_files, create_mutants, setup_source_paths
from mutmut.mutation.trampoline import set_mutant_under_test
set_mutant_under_test("mutant_generation")
copy_src_dir(); copy_also_copy_files(); setup_source_paths()
print(create_mutants(2))
PY
    mm=$(python -c 'import mutmut, os; print(os.path.dirname(mutmut.__file__))')
    mkdir -p mutmut_pkg && cp -r "$mm" mutmut_pkg/ && cp -r "$mm"-*.dist-info mutmut_pkg/ 2>/dev/null || cp -r "$(dirname "$mm")"/mutmut-*.dist-info mutmut_pkg/
    rm -rf mutmut_pkg/mutmut/__pycache__ mutants/.hypothesis
    git -C "$root" rev-parse "$rev" > mutants/REVISION
    tar czf "$root/$GPU_PACK" mutants mutmut_pkg
    echo "packed $(grep -c "__mutmut_[0-9]*'\] = " -r mutants/h2d_contracts/h2d_impl | awk -F: '{s+=$2} END {print s}') mutants of $rev into $GPU_PACK ($(du -h "$root/$GPU_PACK" | cut -f1))"
    rm -f "$log"
    exit 0
fi
start=$(date +%s)
mutmut run --max-children "$children" ${MUTANTS:+"$MUTANTS"} > "$work/mutmut-run.out" 2>&1 || echo "mutmut run exited $?" >> "$log"
echo "finished: $(date -u +%FT%TZ) ($(( $(date +%s) - start )) s)" >> "$log"
# mutmut redraws one progress line; keep its last state.
echo "final progress: $(tr '\r' '\n' < "$work/mutmut-run.out" | grep -a '/' | tail -1)" >> "$log"
mutmut results --all true > "$out/results-$tag.txt" 2>&1
mutmut export-cicd-stats >> "$log" 2>&1
cp mutants/mutmut-cicd-stats.json "$out/stats-$tag.json"
: > "$out/survivors-$tag.txt"
for m in $(grep -E ': (survived|no tests)$' "$out/results-$tag.txt" | sed 's/^ *//; s/: .*$//'); do
    # one failing `mutmut show` must not end the script (set -e) and, with it, the scratch
    # directory: the contract-suite run of 73734f2 lost 198 of its 290 survivors' diffs so
    mutmut show "$m" >> "$out/survivors-$tag.txt" 2>&1 || echo "(mutmut show $m failed: exit $?)" >> "$out/survivors-$tag.txt"
    echo >> "$out/survivors-$tag.txt"
done
cat "$out/stats-$tag.json" >> "$log"
echo "report: $out/{run,results,survivors,stats}-$tag.*"
