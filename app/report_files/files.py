"""The files of an import: files, folders (every report file under them) and zips, read within bounds.

A report is at most MAX_FILE_BYTES (the largest AWR report with every section is a few MB); a zip holds at most
MAX_MEMBERS files and MAX_ZIP_BYTES once unpacked, and no member unpacks to more than MAX_RATIO times its packed size
(a zip bomb): each is refused by its header's sizes before it is unpacked, and a member is read only up to its bound,
whatever its header says. A zip inside a zip is refused. In folders and zips, the files read are those named as
reports are (REPORT_SUFFIXES); the others are listed as skipped. A file named on its own is always read.
"""

import io
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from app.report_files.model import ReportError

MAX_FILE_BYTES = 50 * 1024 * 1024
MAX_MEMBERS = 10_000
MAX_ZIP_BYTES = 2 * 1024 * 1024 * 1024
MAX_RATIO = 200
REPORT_SUFFIXES = (".txt", ".html", ".htm", ".lst", ".log", ".out", ".rpt")


@dataclass
class Found:
    """What an import reads: each file's (name, reader) in order, the problems found before reading any, and the
    files skipped."""

    entries: list = field(default_factory=list)  # (name, a function returning its bytes)
    problems: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def gather(paths: list[str | Path]) -> Found:
    """The files under `paths` (files, folders, zips)."""
    found = Found()
    for p in map(Path, paths):
        if p.is_dir():
            for f in sorted(x for x in p.rglob("*") if x.is_file()):
                if _hidden(f.relative_to(p)):
                    continue
                if f.suffix.lower() == ".zip":
                    _zip(found, str(f), lambda f=f: f.open("rb"))
                elif f.suffix.lower() in REPORT_SUFFIXES:
                    _file(found, f)
                else:
                    found.skipped.append(f"{f}: not named as a report ({', '.join(REPORT_SUFFIXES)})")
        elif p.is_file():
            if zipfile.is_zipfile(p):
                _zip(found, str(p), lambda p=p: p.open("rb"))
            else:
                _file(found, p)
        else:
            found.problems.append(f"{p}: no such file or folder")
    return found


def uploaded(files: list[tuple[str, bytes]]) -> Found:
    """The files of an upload, (name, bytes) each: a zip is opened, anything else read as a report."""
    found = Found()
    for name, content in files:
        if content[:4] == b"PK\x03\x04":
            _zip(found, name, lambda content=content: io.BytesIO(content))
        elif len(content) > MAX_FILE_BYTES:
            found.problems.append(_too_large(name, len(content)))
        else:
            found.entries.append((name, lambda content=content: content))
    return found


def _hidden(relative: Path | PurePosixPath) -> bool:
    """A file a system leaves beside the reports (.DS_Store, __MACOSX/)."""
    return any(part.startswith(".") or part == "__MACOSX" for part in relative.parts)


def _too_large(name: str, size: int) -> str:
    return f"{name}: {size / 1024 / 1024:.0f} MB, over the {MAX_FILE_BYTES // 1024 // 1024} MB a report file may be"


def _file(found: Found, path: Path):
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        found.problems.append(_too_large(str(path), size))
        return
    found.entries.append((str(path), lambda: _bounded(path.open("rb"), str(path))))


def _bounded(stream, name: str) -> bytes:
    with stream:
        data = stream.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise ReportError(_too_large(name, len(data)))
    return data


def _zip(found: Found, name: str, opener):
    try:
        archive = zipfile.ZipFile(opener())
        members = [m for m in archive.infolist() if not m.is_dir()]
    except (zipfile.BadZipFile, OSError) as exc:
        found.problems.append(f"{name}: not a readable zip ({exc})")
        return
    if len(members) > MAX_MEMBERS:
        found.problems.append(f"{name}: {len(members)} files, over the {MAX_MEMBERS} a zip may hold")
        return
    total = sum(m.file_size for m in members)
    if total > MAX_ZIP_BYTES:
        found.problems.append(f"{name}: unpacks to {total / 1024**3:.1f} GB, over {MAX_ZIP_BYTES // 1024**3} GB")
        return
    for m in members:
        inner = f"{name}/{m.filename}"
        suffix = PurePosixPath(m.filename).suffix.lower()
        if _hidden(PurePosixPath(m.filename)):
            continue
        if suffix == ".zip":
            found.problems.append(f"{inner}: a zip inside a zip; unpack it first")
        elif suffix not in REPORT_SUFFIXES:
            found.skipped.append(f"{inner}: not named as a report ({', '.join(REPORT_SUFFIXES)})")
        elif m.file_size > MAX_FILE_BYTES:
            found.problems.append(_too_large(inner, m.file_size))
        elif m.file_size > MAX_RATIO * max(m.compress_size, 1) and m.file_size > 1024 * 1024:
            found.problems.append(
                f"{inner}: unpacks to {m.file_size / m.compress_size:.0f} times its packed size (a zip bomb?); "
                f"refused over {MAX_RATIO} times"
            )
        else:
            found.entries.append((inner, lambda m=m, inner=inner: _bounded(archive.open(m), inner)))
