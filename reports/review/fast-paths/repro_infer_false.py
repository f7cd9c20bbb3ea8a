"""as_source_tensor(flat float list, infer_dtype=False): second value (should be source.dtype)."""
import torch
from h2d_impl._host import as_source_tensor
for data in ([0.5, 1.5], (True,), [3]):
    s, own = as_source_tensor(data, infer_dtype=False)
    print(data, 'source', s.dtype, 'second', own)
