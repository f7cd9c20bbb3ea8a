#!/usr/bin/env bash
# mypy --strict on the kit's public packages, in the layout a wheel installs.
#
#   bash tools/typecheck.sh                 # python: .venv/bin/python if present, else python3
#   PYTHON=/path/to/venv/bin/python bash tools/typecheck.sh
#
# In a checkout the folders h2d_impl/, harness/, contracts/, strategies/ sit at the top and
# the editable install maps them under h2d_contracts with an import hook (setuptools'
# editable finder), which mypy cannot follow. So the working tree (tracked files and untracked ones git does not ignore: edits
# in progress are checked) is copied to a scratch directory, a wheel is built there
# (`pip wheel --no-deps --no-build-isolation`, offline: setuptools from the environment)
# and unpacked into build/typecheck/site/, and mypy runs there with [tool.mypy] of this
# checkout's pyproject.toml on the public packages: h2d_contracts itself, its pytest plugin
# (h2d_contracts.plugin), h2d_contracts.h2d_impl, .strategies, .harness and .contracts (with
# .contracts.targets and .contracts.mutants). The shipped suite h2d_contracts.tests is not
# checked. mypy's cache stays in build/typecheck/.mypy_cache (build/ is ignored by git).
# Exit status: mypy's (0 only when no errors). Extra arguments go to mypy.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
if [ -n "${PYTHON:-}" ]; then py=$PYTHON; elif [ -x .venv/bin/python ]; then py=$root/.venv/bin/python; else py=python3; fi
out=$root/build/typecheck
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

mkdir -p "$scratch/src" "$scratch/whl"
git ls-files -z --cached --others --exclude-standard \
    | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done \
    | tar --null -T - -cf - | tar -xf - -C "$scratch/src"
(cd "$scratch/src" && "$py" -m pip wheel -q --no-deps --no-build-isolation -w "$scratch/whl" .)

rm -rf "$out/site"
mkdir -p "$out/site"
"$py" -m zipfile -e "$scratch"/whl/h2d_contracts-*.whl "$out/site"
rm -rf "$out/site/h2d_contracts/tests"  # the shipped suite: not part of the checked API

cd "$out/site"
exec "$py" -m mypy --config-file "$root/pyproject.toml" --cache-dir "$out/.mypy_cache" \
    -m h2d_contracts \
    -p h2d_contracts.plugin \
    -p h2d_contracts.h2d_impl \
    -p h2d_contracts.strategies \
    -p h2d_contracts.harness \
    -p h2d_contracts.contracts \
    "$@"
