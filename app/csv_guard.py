"""The formula guard of awrlens's CSV: a cell that a spreadsheet would run as a formula (it starts with one of
FORMULA_STARTS) is written with an apostrophe before it (app/api/respond.py csv_cell, and the page's CSV and Copy
buttons, static/js/format.js), and read back without it (app/runs/files.py, a run's own CSV imported again)."""

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # a spreadsheet may run a cell that starts so
