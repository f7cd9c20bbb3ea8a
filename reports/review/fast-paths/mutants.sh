#!/bin/bash
# Apply each mutant to a scratch copy of new/, run tests/test_fast_paths.py, report caught / not caught.
set -u
run() {
  name=$1; shift
  rm -rf /tmp/review_s6/mut && cp -r /tmp/review_s6/new /tmp/review_s6/mut
  /work/main/.venv/bin/python - "$@" <<'PY'
import sys
p='/tmp/review_s6/mut/h2d_impl/_host.py'; s=open(p).read()
old, new = sys.argv[1], sys.argv[2]
assert s.count(old) == 1, old
open(p,'w').write(s.replace(old, new))
PY
  cd /tmp/review_s6/mut && out=$(PYTHONPATH=/tmp/review_s6/mut timeout 300 /work/main/.venv/bin/python -m pytest -q -p no:cacheprovider tests/test_fast_paths.py 2>&1 | tail -1)
  echo "$name: $out"
}
run "no writeable test" " and arr.flags.writeable and (arr.ndim" " and (arr.ndim"
run "float own hard-coded float32" "float: (np.dtype(np.float64), None)," "float: (np.dtype(np.float64), torch.float32),"
run "infer_dtype=False returns own" "return flat if infer_dtype else (flat[0], flat[0].dtype)" "return flat"
run "longlong q/Q viewable" "np.complex64, np.complex128)" "np.complex64, np.complex128, np.longlong, np.ulonglong)"
