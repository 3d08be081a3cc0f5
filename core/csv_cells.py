"""Every CSV the project writes goes through here: a text cell a spreadsheet would read as a
formula (it starts with = + - @, a tab or a carriage return) is prefixed with an apostrophe.
Names come from people and agents; `=HYPERLINK(...)` must reach a spreadsheet as text."""

import csv

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value):
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


class SafeCsvWriter:
    """csv.writer with every text cell neutralized."""

    def __init__(self, out, **options):
        self._writer = csv.writer(out, **options)

    def writerow(self, row):
        return self._writer.writerow([csv_cell(value) for value in row])

    def writerows(self, rows):
        for row in rows:
            self.writerow(row)
