// AWRLens.Format (static/js/format.js): values, units, times and CSV as the page shows and writes them.
import { beforeAll, describe, expect, test } from "vitest";
import { load } from "./load.js";

let F;
beforeAll(() => { F = load("format.js").Format; });

describe("values with their units", () => {
  test("bytes and MB scale by 1,024 to the largest unit under 1,024, per second kept", () => {
    expect(F.fmtValue(800 * 1024, "MB")).toBe("800 GB");
    expect(F.fmtValue(1536, "bytes")).toBe("1.5 KB");
    expect(F.fmtValue(3 * 1024 ** 3, "bytes/s")).toBe("3 GB/s");
    expect(F.fmtValue(1023, "bytes")).toBe("1,023 bytes");
  });
  test("1,024 of a byte unit is one of the next: 1,024 MB is 1 GB, 1,023 MB stays MB", () => {
    expect(F.fmtValue(1024, "MB")).toBe("1 GB");
    expect(F.fmtValue(1023, "MB")).toBe("1,023 MB");
    expect(F.fmtValue(-1024, "MB/s")).toBe("-1 GB/s");
    expect(F.fmtValue(1024, "bytes/txn")).toBe("1 KB/txn");
    expect(F.fmtValue(1024 ** 2 - 1, "bytes")).toBe("1 MB");  // 1,023.999 KB
  });
  test("a value that would read 1,024 once rounded is shown in the next unit too", () => {
    expect(F.fmtValue(1023.6, "MB")).toBe("1 GB");
    expect(F.fmtValue(1023.4, "MB")).toBe("1,023 MB");
  });
  test("a percentage keeps one decimal, a count per second reads '/s'", () => {
    expect(F.fmtValue(12.345, "%")).toBe("12.3 %");
    expect(F.fmtValue(101, "1/s")).toBe("101 /s");
    expect(F.unitTitle("1/s")).toBe("per second");
    expect(F.unitTitle("ms")).toBe("ms");
  });
  test("significant digits follow the size of the value", () => {
    expect(F.fmtValue(1234.56, "ops")).toBe("1,235 ops");
    expect(F.fmtValue(12.345, "ms")).toBe("12.3 ms");
    expect(F.fmtValue(1.2345, "ms")).toBe("1.23 ms");
    expect(F.fmtValue(0.012345, "ms")).toBe("0.012 ms");
  });
  test("a time reads in the largest unit that shows it as 1 or more, never finer than its own", () => {
    expect(F.fmtValue(1232084, "ms")).toBe("20.5 min");  // the SQL monitor's elapsed time of issue 34
    expect(F.fmtValue(1234.56, "ms")).toBe("1.23 s");
    expect(F.fmtValue(999, "ms")).toBe("999 ms");
    expect(F.fmtValue(7200, "s")).toBe("2 h");
    expect(F.fmtValue(59, "s")).toBe("59 s");
    expect(F.fmtValue(90, "s")).toBe("1.5 min");
    expect(F.fmtValue(0.5, "s")).toBe("0.5 s");  // not 500 ms: the value's own unit is the finest
    expect(F.fmtValue(1500, "µs")).toBe("1.5 ms");
    expect(F.fmtValue(-3600000, "ms")).toBe("-1 h");
    expect(F.fmtValue(0, "ms")).toBe("0 ms");
    expect(F.fmtValue(90, "s/txn")).toBe("90 s/txn");  // a rate is not a duration
  });
  test("a moment in a file name is the zone's local minute", () => {
    expect(F.fileStamp(Date.UTC(2026, 10, 13, 6, 0), "UTC+01:00")).toBe("20261113T0700");
    expect(F.fileStamp(Date.UTC(2026, 10, 13, 23, 59, 59), "UTC")).toBe("20261113T2359");
  });
  test("no value is a dash, never 0 or NaN", () => {
    for (const missing of [null, undefined, NaN]) { expect(F.fmtValue(missing, "ms")).toBe("—"); }
    expect(F.fmtChange(null)).toBe("—");
  });
  test("changes carry their sign; ticks are compact", () => {
    expect(F.fmtChange(12.54)).toBe("+12.5 %");
    expect(F.fmtChange(-3)).toBe("-3 %");
    expect(F.fmtCompact(1234)).toBe("1.2k");
    expect(F.fmtCompact(3_400_000)).toBe("3.4M");
    expect(F.fmtCompact(250_000)).toBe("250k");
    // a value that rounds up to a thousand of one unit is one of the next
    expect(F.fmtCompact(999_960)).toBe("1M");
    expect(F.fmtCompact(-999_960)).toBe("-1M");
    expect(F.fmtCompact(99_960)).toBe("100k");
    expect(F.fmtCompact(999_499)).toBe("999k");
  });
});

describe("times in the database's zone", () => {
  const moment = Date.UTC(2026, 10, 13, 13, 0, 0);  // 2026-11-13 13:00 UTC
  test("a UTC offset in minutes names a fixed zone", () => {
    expect(F.zone(60)).toBe("UTC+01:00");
    expect(F.zone(-330)).toBe("UTC-05:30");
    expect(F.zone(0)).toBe("UTC");
    expect(F.zone(null)).toBe("local");
  });
  test("ISO 8601 with the zone's offset, seconds only when there are some, and back", () => {
    expect(F.isoTime(moment, "UTC+01:00")).toBe("2026-11-13T14:00+01:00");
    expect(F.isoTime(moment + 5000, "UTC-05:30")).toBe("2026-11-13T07:30:05-05:30");
    expect(F.offsetOf("2026-11-13T07:30:05-05:30")).toBe(-330);
    expect(F.offsetOf("2026-11-13T13:00Z")).toBe(0);
    expect(Date.parse(F.isoTime(moment, "UTC+01:00"))).toBe(moment);
  });
  test("a datetime-local input's value is read in the zone it was written in", () => {
    expect(F.inputTime(moment, "UTC+01:00")).toBe("2026-11-13T14:00");
    expect(F.parseInputTime("2026-11-13T14:00", "UTC+01:00")).toBe(moment);
    expect(F.parseInputTime("not a time", "UTC")).toBeNaN();
    expect(F.fmtTime(moment, "UTC+01:00", true)).toBe("2026-11-13 14:00 +01:00");
  });
});

describe("CSV (RFC 4180) and text", () => {
  test("fields with a comma, a quote or a line break are quoted, quotes doubled, lines end CRLF", () => {
    const text = F.csv(["name", "value"], [["a,b", 1], ['say "hi"', 2.5], ["two\nlines", null]]);
    expect(text).toBe('name,value\r\n"a,b",1\r\n"say ""hi""",2.5\r\n"two\nlines",\r\n');
  });
  test("text a spreadsheet would run as a formula gets a leading apostrophe, numbers do not", () => {
    expect(F.csv(["=1+1"], [["+cmd"], ["-2"], ["@SUM(A1)"], ["\tx"], [-2], ["plain"]]))
      .toBe("'=1+1\r\n'+cmd\r\n'-2\r\n'@SUM(A1)\r\n'\tx\r\n-2\r\nplain\r\n");
  });
  test("the formula guard covers a carriage return and a tab first too, as the API's CSV (app/api/respond.py)", () => {
    // the apostrophe first, then RFC 4180's quotes around a field that holds a carriage return
    expect(F.csv(["a"], [["\rcmd"], ["\t=1"], ["x\r"]])).toBe("a\r\n\"'\rcmd\"\r\n'\t=1\r\n\"x\r\"\r\n");
    for (const first of ["=", "+", "-", "@", "\t", "\r"]) { expect(F.formulaSafe(first + "1")).toBe("'" + first + "1"); }
    for (const safe of ["1", " =1", "'=1", "a=1", ""]) { expect(F.formulaSafe(safe)).toBe(safe); }
    expect(F.formulaSafe(-1)).toBe(-1);
  });
  test("escaped for HTML: markup from the database stays text", () => {
    expect(F.esc('<img src=x onerror="a()">&\'')).toBe("&lt;img src=x onerror=&quot;a()&quot;&gt;&amp;&#39;");
    expect(F.esc(null)).toBe("");
  });
});
