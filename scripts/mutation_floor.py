"""After `mutmut run` (make mutate): each chosen module's mutation score from mutants/<module>.meta, checked against its
floor in tests/data/mutation.json; exits 1 naming every module below its floor (docs/mutation.md).

`mutation_floor.py MODULE...` checks only the modules named (make mutate MUTATE_MODULES=...), each of them listed.

score = killed / (mutants - equivalent), a timeout counting as killed; equivalent mutants are the ones the json lists
with their reason. A mutant left unchecked (an interrupted run) counts as surviving."""

import json
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KILLED = {1, 3, 24, -24, 36, 37, 152, 255}  # mutmut 3's exit codes: test failed, or timed out (SIGXCPU), or type check
NO_TESTS = 33


def scores(results: dict, modules: list[str]) -> dict:
    out = {}
    for module in modules:
        entry = results["modules"][module]
        meta = json.loads((ROOT / "mutants" / (module + ".meta")).read_text())["exit_code_by_key"]
        equivalent = set(entry.get("equivalent", {}))
        counted = {k: v for k, v in meta.items() if k not in equivalent}
        killed = sum(1 for v in counted.values() if v in KILLED)
        survivors = sorted(k for k, v in counted.items() if v not in KILLED)
        out[module] = {
            "mutants": len(meta),
            "equivalent": len(equivalent & set(meta)),
            "killed": killed,
            "score": round(100.0 * killed / len(counted), 1) if counted else 100.0,
            "survivors": survivors,
            "floor": entry["floor"],
        }
    return out


def main(asked: list[str]) -> int:
    results = json.loads((ROOT / "tests/data/mutation.json").read_text())
    chosen = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"]["only_mutate"]
    if sorted(chosen) != sorted(results["modules"]):
        print("pyproject.toml's [tool.mutmut] only_mutate and tests/data/mutation.json name different modules")
        return 1
    unknown = [m for m in asked if m not in chosen]
    if unknown:
        print("not in pyproject.toml's [tool.mutmut] only_mutate:", ", ".join(unknown))
        return 1
    chosen = asked or chosen
    missing = [m for m in chosen if not (ROOT / "mutants" / (m + ".meta")).exists()]
    if missing:
        print("no mutmut results for", ", ".join(missing), "(run make mutate)")
        return 1
    low = []
    for module, s in scores(results, chosen).items():
        print(
            f"{module}: {s['score']}% ({s['killed']} killed of {s['mutants'] - s['equivalent']}, "
            f"{s['equivalent']} equivalent), floor {s['floor']}%"
        )
        for name in s["survivors"]:
            print("    survived:", name)
        if s["score"] < s["floor"]:
            low.append(module)
    if low:
        print("below the floor:", ", ".join(low))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
