"""Run documents from files: JSON (a whole run, or a run as GET /api/v1/benchmarks/{slug} answers it) or CSV
(its measurements, with the run's fields given apart).

CSV: a header row, then one measurement per row. Columns `series`, `x` and `y` are required, `unit` is optional,
`seq` is ignored (a run's CSV export can be imported again as it is), and every other column is an extra attribute
of the row (empty cells are left out). An `x` that reads as a number is a number, otherwise a category name; extra
values that read as numbers are numbers. A cell or a name starting with an apostrophe then a formula's first character
(= + - @ tab CR) is read without the apostrophe: the mark awrlens's own CSV puts there (app/api/respond.csv_cell), so a
run's export imports as the same text.
"""

import codecs
import csv
import io
import math

import orjson

from app.csv_guard import FORMULA_STARTS
from app.errors import BadParameter

CSV_COLUMNS = ("series", "x", "y", "unit")


def read_document(name: str, data: bytes) -> tuple[dict, list | None]:
    """(run document, where each measurement came from) from a file's name and bytes."""
    if name.lower().endswith(".csv"):
        return read_csv(data.decode("utf-8-sig"))
    try:
        doc = orjson.loads(data.removeprefix(codecs.BOM_UTF8))  # as the CSV: a byte-order mark is read
    except orjson.JSONDecodeError as exc:
        raise BadParameter(
            f"{name} is not valid JSON ({exc}); give a .json run or a .csv of measurements", "file"
        ) from None
    if isinstance(doc, dict) and isinstance(doc.get("run"), dict) and "rows" in doc:
        doc = from_answer(doc)
    return doc, None


def from_answer(answer: dict) -> dict:
    """The run document of an answer of GET /api/v1/benchmarks/{slug}, so a run moves between stores as it is."""
    run = answer["run"]
    doc = {
        k: run.get(k)
        for k in ("slug", "title", "kind", "description", "visibility", "started", "finished", "parameters")
    }
    doc["environment"] = {
        k: run[k] for k in ("host", "instance_type", "vcpus", "cores", "db_version") if run.get(k) is not None
    }
    if run.get("awr_db"):
        target, _, dbid = str(run["awr_db"]).rpartition(".")
        doc["awr"] = {
            "target": target,
            "dbid": int(dbid) if dbid.isdigit() else dbid,
            "begin_snap": run.get("awr_begin_snap"),
            "end_snap": run.get("awr_end_snap"),
        }
    rows = answer["rows"] if isinstance(answer["rows"], list) else []
    doc["measurements"] = [
        {k: r[k] for k in ("series", "x", "y", "unit", "extra") if r.get(k) not in (None, {})}
        if isinstance(r, dict)
        else r
        for r in rows
    ]
    return {k: v for k, v in doc.items() if v is not None}


def read_csv(text: str) -> tuple[dict, list]:
    """({"measurements": [...]}, ["line 2", ...]) from CSV text."""
    reader = csv.reader(io.StringIO(text.removeprefix("\ufeff")))
    try:
        header = [_unguarded(h.strip()) for h in next(reader)]
    except StopIteration:
        raise BadParameter(
            "the CSV file is empty: a header row (series,x,y,unit,...) is required", "measurements"
        ) from None
    missing = [c for c in ("series", "x", "y") if c not in header]
    if missing:
        raise BadParameter(
            f"the CSV header must have series, x and y (unit and other columns optional); missing {', '.join(missing)}",
            "measurements",
        )
    if len(set(header)) != len(header) or "" in header:
        raise BadParameter("the CSV header has an empty or repeated column name", "measurements")
    rows, where = [], []
    for cells in reader:
        if not any(c.strip() for c in cells):
            continue
        line = reader.line_num
        n = len(rows) + 1
        if len(cells) != len(header):
            raise BadParameter(
                f"row {n} (line {line}): {len(cells)} cells for {len(header)} columns", f"measurements[{n}]"
            )
        values = dict(zip(header, map(_unguarded, cells), strict=True))
        row = {"series": values["series"], "x": _number_or_text(values["x"])}
        y = values["y"].strip()
        row["y"] = _number_or_text(y) if y else None
        if values.get("unit", "").strip():
            row["unit"] = values["unit"].strip()
        extra = {
            k: _number_or_text(v) for k, v in values.items() if k not in CSV_COLUMNS and k != "seq" and v.strip() != ""
        }
        if extra:
            row["extra"] = extra
        rows.append(row)
        where.append(f"line {line}")
    return {"measurements": rows}, where


def _unguarded(cell: str) -> str:
    """A cell without the apostrophe the formula guard of awrlens's CSV put before it."""
    return cell[1:] if cell[:1] == "'" and cell[1:2] in FORMULA_STARTS else cell


def _number_or_text(value: str):
    text = value.strip()
    try:
        number = float(text)
    except ValueError:
        return text
    if not math.isfinite(number):
        return text
    return int(number) if number.is_integer() and "." not in text and "e" not in text.lower() else number
