"""Failures of the watches app."""

from __future__ import annotations


class WatchesError(Exception):
    """A watches failure (never raised itself)."""

    def __init__(self, message: str | None = None):
        self.message = message or (self.__doc__ or "").strip()
        super().__init__(self.message)


class SheetInvalid(WatchesError):
    """The spreadsheet of watches is refused; nothing was written."""

    def __init__(self, message: str | None = None, *, errors: list[dict] | None = None):
        super().__init__(message)
        self.errors = errors or []
        """Each {"row", "column", "error"}: the spreadsheet's row number (the header is row 1) and column name."""
