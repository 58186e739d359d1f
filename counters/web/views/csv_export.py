"""CSV answers for spreadsheets: Python's csv module, a header row, and no cell a spreadsheet would run."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence

from django.http import HttpResponse

# A text cell starting with one of these is a formula to Excel, LibreOffice or Google Sheets
# (OWASP's "CSV injection"); a leading apostrophe makes it plain text there.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: object) -> object:
    """A cell as written: numbers as they are, text that could start a formula behind an apostrophe."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def csv_response(filename: str, header: Sequence[str], rows: Iterable[Sequence[object]]) -> HttpResponse:
    """A `text/csv` download named `filename` (a name made of validated slugs): the header, then the rows."""
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    writer = csv.writer(response)
    writer.writerow(header)
    writer.writerows([safe_cell(value) for value in row] for row in rows)
    return response
