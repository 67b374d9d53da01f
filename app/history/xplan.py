"""A plan as DBMS_XPLAN.DISPLAY_AWR prints it in its TYPICAL format (docs/awr-rules.md §34): the statement's SQL_ID
and text, the plan hash value, the plan table (Id, Operation, Name, Rows, Bytes, Cost (%CPU), Time), the predicate
section and the notes OTHER_XML carries; text a DBA pastes into a ticket."""

import xml.etree.ElementTree as ET

# OTHER_XML's <info type="..."> elements DBMS_XPLAN turns into a note, and the note's words ({} is the element's text)
NOTE_TEXT = {
    "dynamic_sampling": "dynamic statistics used: dynamic sampling (level={})",
    "cardinality_feedback": "statistics feedback used for this statement",
    "performance_feedback": "performance feedback used for this statement",
    "sql_profile": 'SQL profile "{}" used for this statement',
    "sql_patch": 'SQL patch "{}" used for this statement',
    "baseline": 'SQL plan baseline "{}" used for this statement',
    "outline": 'outline "{}" used for this statement',
    "adaptive_plan": "this is an adaptive plan",
}
SUFFIXES = "KMGTPE"
WIDEST = 5  # Rows, Bytes and Cost print at most 5 characters: larger values in K, M, G... (§34)


def notes(other_xml: str | None) -> list[str]:
    """The notes of a plan line's OTHER_XML, in its order; none where it holds none or cannot be read."""
    if not other_xml:
        return []
    try:
        root = ET.fromstring(other_xml)
    except ET.ParseError:
        return []
    return [
        NOTE_TEXT[info.get("type")].format((info.text or "").strip())
        for info in root.iter("info")
        if info.get("type") in NOTE_TEXT and info.get("note", "y") != "n"
    ]


def size(value, base: int) -> str:
    """A count in at most 5 characters: as it is up to 99999, else divided by `base` (truncated) until it fits in 4
    digits, with the suffix K, M, G... (rows and cost by 1000, bytes by 1024); blank where unknown."""
    if value is None:
        return ""
    value = int(value)
    if len(str(value)) <= WIDEST:
        return str(value)
    for suffix in SUFFIXES:
        value //= base
        if len(str(value)) < WIDEST:
            return f"{value}{suffix}"
    return f"{value}{SUFFIXES[-1]}"


def cost_cell(line: dict) -> str:
    """'Cost (%CPU)': the cost, then its CPU share in parentheses, (cost − io_cost) / cost rounded, with an unknown
    IO_COST as 0 (the statement's line reads (100), as in Oracle's)."""
    cost = line.get("cost")
    if cost is None:
        return ""
    share = round(100 * (cost - (line.get("io_cost") or 0)) / cost) if cost else 0
    return f"{size(cost, 1000):>5} {f'({share})':>5}"


def clock(seconds) -> str:
    """'Time': the optimizer's estimate in seconds as HH:MM:SS; blank where unknown."""
    if seconds is None:
        return ""
    seconds = int(seconds)
    return f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


TIGHT = ("Operation", "Cost (%CPU)")  # columns whose widest cell runs up to the bar, as Oracle prints them
# the plan table's columns: title, the cell of a line, and its alignment: left, right, or "suffix" (right-aligned
# digits whose K, M, G... stands where the space before the next bar would: "|  1000K|    18M|", as Oracle prints)
COLUMNS = (
    (
        "Operation",
        lambda ln: " " * (ln["depth"] or 0) + " ".join(filter(None, (ln["operation"], ln["options"]))),
        "left",
    ),
    ("Name", lambda ln: ln["object_name"] or "", "left"),
    ("Rows", lambda ln: size(ln["cardinality"], 1000), "suffix"),
    ("Bytes", lambda ln: size(ln["bytes"], 1024), "suffix"),
    ("Cost (%CPU)", cost_cell, "right"),
    ("Time", lambda ln: clock(ln["time"]), "left"),
)


def _digits(text: str) -> tuple[str, str]:
    """A size cell as its digits and the character after them (its suffix, or the space before the bar)."""
    return (text[:-1], text[-1]) if text[-1:].isalpha() else (text, " ")


def plan_table(lines: list[dict]) -> list[str]:
    """The plan table: a rule, the titles, a rule, a row per line (a '*' before the Id of a line with predicates),
    a rule. Each column as wide as its widest cell or title (Rows and Bytes at least 5 digits) and a space, but the
    operation's and the cost's (TIGHT)."""
    id_width = max(3, *(len(str(ln["id"])) for ln in lines))
    # a column no line has a value for is left out, as DBMS_XPLAN leaves it (the operation and name stay)
    columns = [c for c in COLUMNS if c[0] in ("Operation", "Name") or any(c[1](ln) for ln in lines)]
    cells = [[cell(ln) for _, cell, _ in columns] for ln in lines]
    widths = [
        max(len(title), *(len(_digits(row[k])[0]) if align == "suffix" else len(row[k]) for row in cells))
        + (WIDEST - len(title) if align == "suffix" and len(title) < WIDEST else 0)
        for k, (title, _, align) in enumerate(columns)
    ]

    def row(lead: str, texts: list[str], titles: bool) -> str:
        parts = [lead]
        for (title, _, align), text, width in zip(columns, texts, widths, strict=True):
            if titles or align == "left":
                padded = text.ljust(width) + " "
            elif align == "suffix":
                digits, after = _digits(text)
                padded = digits.rjust(width) + after
            else:
                padded = text.rjust(width) + " "
            parts.append(" " + (padded[:-1] if title in TIGHT else padded))
        return "|" + "|".join(parts) + "|"

    head = row(" " + "Id".ljust(id_width + 1), [title for title, _, _ in columns], True)
    rule = "-" * len(head)
    body = [
        row(
            ("*" if ln["access_predicates"] or ln["filter_predicates"] else " ") + str(ln["id"]).rjust(id_width) + " ",
            texts,
            False,
        )
        for ln, texts in zip(lines, cells, strict=True)
    ]
    return [rule, head, rule, *body, rule]


def predicates(lines: list[dict]) -> list[str]:
    """'Predicate Information (identified by operation id):': per line with predicates its id, then access(...) and
    filter(...), the second under the first."""
    out = []
    width = max(4, *(len(str(ln["id"])) + 1 for ln in lines))
    for ln in lines:
        kinds = [(k, ln[f"{k}_predicates"]) for k in ("access", "filter") if ln[f"{k}_predicates"]]
        for n, (kind, text) in enumerate(kinds):
            lead = f"{str(ln['id']).rjust(width)} - " if n == 0 else " " * (width + 3)
            out.append(f"{lead}{kind}({text})")
    if not out:
        return []
    title = "Predicate Information (identified by operation id):"
    return ["", title, "-" * len(title), "", *out]


def text(sql_id: str, sql_text: str | None, plan: dict) -> str:
    """One plan of a statement as DISPLAY_AWR prints it (TYPICAL)."""
    head = f"SQL_ID {sql_id}"
    out = [head, "-" * len(head), sql_text if sql_text is not None else "(the statement's text is not in AWR)", ""]
    out += [f"Plan hash value: {plan['plan_hash_value']}", ""]
    if plan["lines"]:
        out += plan_table(plan["lines"])
        out += predicates(plan["lines"])
    if plan["notes"]:
        out += ["", "Note", "-----", *[f"   - {note}" for note in plan["notes"]]]
    return "\n".join(out) + "\n"
