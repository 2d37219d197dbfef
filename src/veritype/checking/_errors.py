"""The checking error."""

from __future__ import annotations


