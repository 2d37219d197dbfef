"""The checking error."""

from __future__ import annotations


class CheckError(ValueError):
    """A check that cannot run: a missing or unreadable file, a wrong column, a run directory
    holding another run. The message names the problem."""
