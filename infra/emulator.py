"""Rehearse the deploy on an AWS emulator (moto's server, LocalStack): the project's Zappa settings with
"touch": false on every stage, written to build/zappa_settings.emulator.json (infra/README.md, "Rehearse on an
emulator").

  .venv/bin/python infra/emulator.py            # then: zappa deploy demo -s build/zappa_settings.emulator.json ...

Zappa's deploy and update end by waiting for the function and requesting the stage's URL ("touch"), and that URL
is on execute-api.amazonaws.com, not on the emulator: with touch on, a deploy that made everything still fails at
its last step. Every AWS call reaches the emulator through AWS_ENDPOINT_URL, which boto3 reads for every client
(Zappa's, deploy_site.py's, guard_rails.py's).
"""

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SETTINGS_FILE = ROOT / "zappa_settings.json"
OUT = ROOT / "build" / "zappa_settings.emulator.json"


def emulator_settings(path: Path = SETTINGS_FILE) -> dict:
    settings = json.loads(Path(path).read_text())
    for stage in settings.values():
        stage["touch"] = False  # (an `extends` stage gets it from its own entry too)
    return settings


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, default=OUT)
    args = parser.parse_args(argv)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(emulator_settings(), indent=4) + "\n")
    print(f"{args.output}: every stage with touch false; zappa deploy STAGE -s {args.output} -z dist/...")
    return 0


if __name__ == "__main__":
    sys.exit(main())
