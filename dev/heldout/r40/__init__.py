"""Held-out round r40: 24 single-change bugs of the reference (``h2d_contracts.h2d_impl``) plus a control.

Each ``bNN_<name>.py`` has a ``target()`` factory returning a ``Target``; ``b00_control`` is the
unmodified reference through the same plumbing. See BUGS.md; ``repro.py`` shows each CPU-visible bug.
"""
