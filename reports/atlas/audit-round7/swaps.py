"""Run the same probe on the audit's own swapped trees (trees/*): identity, schema, refusal wording."""
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rawclient import run

P = "node_modules/@modelcontextprotocol/server-sequential-thinking"
CALLS = [
 ("empty", {"thought": "", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False}),
 ("strnum", {"thought": "a", "thoughtNumber": "1", "totalThoughts": " 3 ", "nextThoughtNeeded": False}),
 ("frac", {"thought": "a", "thoughtNumber": 1.5, "totalThoughts": 1, "nextThoughtNeeded": False}),
 ("big", {"thought": "a", "thoughtNumber": 9007199254740994, "totalThoughts": 1, "nextThoughtNeeded": False}),
 ("no_ntn", {"thought": "a", "thoughtNumber": 1, "totalThoughts": 1}),
 ("ntn_TRUE", {"thought": "a", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": "TRUE"}),
 ("ntn_null", {"thought": "a", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": None}),
 ("isrev_1", {"thought": "a", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False, "isRevision": 1}),
 ("thought_num", {"thought": 1, "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False}),
 ("wrongname", {"__name": "sequential_thinking", "thought": "a", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False}),
]
dirs = sys.argv[1:] or sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "trees", "*")))
for d in dirs:
    pk = os.path.join(d, P) if os.path.isdir(os.path.join(d, P)) else d
    print("=====", d)
    a, err = run(pk, [], {}, "2025-03-26", wait=0.3)
    r = (a[0] or {}).get("result", {})
    print(" init 2025-03-26 ->", r.get("protocolVersion"), r.get("capabilities"), r.get("serverInfo"), "" if a[0] else err[-300:])
    a, err = run(pk, [{"method": "tools/list"}] + [dict(c) for _, c in CALLS], {}, "2024-11-05", wait=0.5)
    if not a[1]:
        print(" no tools/list", err[-500:]); continue
    t = a[1]["result"]["tools"][0]
    print(" required", t["inputSchema"].get("required"), "ntn", t["inputSchema"]["properties"]["nextThoughtNeeded"].get("type"),
          "isRev", t["inputSchema"]["properties"]["isRevision"].get("type"), "keys", sorted(t))
    for (lab, _), ans in zip(CALLS, a[2:]):
        if ans is None: print("  ", lab, "NONE"); continue
        if "error" in ans: print("  ", lab, "ERR", json.dumps(ans["error"])[:200]); continue
        res = ans["result"]; txt = res["content"][0]["text"].replace("\n", " ")
        print("  ", lab, "isError" if res.get("isError") else "ok", " ".join(txt.split())[:230])
