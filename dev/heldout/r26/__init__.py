"""Round-26 held-out bugs: faults that show only at scale or in a sequence of calls.

One module per bug (``bNN_short_name.py``), each with ``target()`` returning an
``h2d_contracts.contracts.Target``; ``b00_control`` is the unmodified reference.
"""
