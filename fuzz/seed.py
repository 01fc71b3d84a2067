#!/usr/bin/env python3
"""Writes the corpus commands (and the shipped policies) as fuzz seeds under fuzz/corpus/TARGET/."""
import hashlib, pathlib, tomllib

root = pathlib.Path(__file__).resolve().parent
repo = root.parent
commands = []
for path in sorted((repo / "corpus").glob("*.toml")):
    commands += [c["command"] for c in tomllib.loads(path.read_text())["case"]]
policies = [p.read_text() for p in sorted((repo / "policies").glob("*.toml"))]
seeds = {
    "parse": commands,
    "check": commands,
    "strip": commands,
    "policy_load": policies,
    "sink": ["\x10\x07" + c for c in commands],
}
for target, items in seeds.items():
    out = root / "corpus" / target
    out.mkdir(parents=True, exist_ok=True)
    for item in items:
        data = item.encode()
        (out / hashlib.sha1(data).hexdigest()).write_bytes(data)
print({t: len(v) for t, v in seeds.items()})
