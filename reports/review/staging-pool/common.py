import sys
sys.path.insert(0, '/work/main')
import torch
from tests.test_staging_pool import SimClock, SimStream, SimEvent
from h2d_contracts.h2d_impl import _staging
from h2d_contracts.h2d_impl._staging import StagingPool
CPU = torch.device('cpu')

def use(pool, clock, want=0):
    """What _copy_pooled does: take, (host copy), enqueue the DMA reading it, give back."""
    c = pool.take(want)
    dma = clock.current.enqueue()
    pool.give_back(c)
    return c, dma
