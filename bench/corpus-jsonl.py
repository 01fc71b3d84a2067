#!/usr/bin/env python3
"""Prints every corpus case as a JSON line {"id", "command"} for `shellgate check --batch`."""
import json, pathlib, sys, tomllib

root = pathlib.Path(__file__).resolve().parent.parent / "corpus"
for path in sorted(root.glob("*.toml")):
    for case in tomllib.loads(path.read_text())["case"]:
        sys.stdout.write(json.dumps({"id": case["id"], "command": case["command"]}) + "\n")
