"""Round r60 of held-out bugs: each ``bNN_*.py`` has a ``target()`` factory."""

import plumbing

plumbing.ROUND = "r60"
