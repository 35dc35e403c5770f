"""Survey every release with the raw client: identity, protocols, tools/list, refusal wording, coercion, switch."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rawclient import run

BASE = os.path.join(os.environ.get("SEQTHINK_CONFORMANCE_CACHE", "/work/cache-targets"),
                    "npm", "@modelcontextprotocol__server-sequential-thinking")
P = "node_modules/@modelcontextprotocol/server-sequential-thinking"
REL = {"0.6.2": "0.6.2@20251002T223258Z", "2025.7.1": "2025.7.1@20251005T005726Z",
       "2025.11.25": "2025.11.25@20251219T191609Z", "2025.12.18": "2025.12.18@20251219T191609Z",
       "2026.7.4": "2026.7.4@20260710T183507Z", "2026.8.31": "2026.8.31@20260902T095239Z"}
def d(rel): return os.path.join(BASE, REL[rel], P)
OK = {"thought": "a", "thoughtNumber": 1, "totalThoughts": 3, "nextThoughtNeeded": True}
CALLS = [
 ("ok", dict(OK)),
 ("empty", {"thought": "", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False}),
 ("strnum", {"thought": "a", "thoughtNumber": "1", "totalThoughts": " 3 ", "nextThoughtNeeded": False}),
 ("frac", {"thought": "a", "thoughtNumber": 1.5, "totalThoughts": 1, "nextThoughtNeeded": False}),
 ("neg", {"thought": "a", "thoughtNumber": -1, "totalThoughts": 1, "nextThoughtNeeded": False}),
 ("big", {"thought": "a", "thoughtNumber": 9007199254740994, "totalThoughts": 1, "nextThoughtNeeded": False}),
 ("no_ntn", {"thought": "a", "thoughtNumber": 1, "totalThoughts": 1}),
 ("ntn_TRUE", {"thought": "a", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": "TRUE"}),
 ("ntn_null", {"thought": "a", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": None}),
 ("isrev_1", {"thought": "a", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False, "isRevision": 1}),
 ("isrev_str", {"thought": "a", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False, "isRevision": "true"}),
 ("thought_num", {"thought": 1, "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False}),
 ("snake", {"thought": "a", "next_thought_needed": True, "thought_number": 1, "total_thoughts": 1}),
 ("proto", {"thought": "a", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False, "branchFromThought": 1, "branchId": "__proto__"}),
 ("wrongname", {"__name": "sequential_thinking", "thought": "a", "thoughtNumber": 1, "totalThoughts": 1, "nextThoughtNeeded": False}),
 ("branch", {"thought": "b", "thoughtNumber": 2, "totalThoughts": 1, "nextThoughtNeeded": False, "branchFromThought": 1, "branchId": "x"}),
 ("again", dict(OK)),
]
out = {}
for rel in REL:
    for sw in ("", "true"):
        env = {"DISABLE_THOUGHT_LOGGING": sw} if sw else {}
        res = {}
        for proto in ("2025-11-25", "2025-06-18", "2024-11-05", "2025-03-26"):
            a, _ = run(d(rel), [], env, proto, wait=0.3)
            res["init_" + proto] = a[0]
        frames = [{"method": "tools/list"}] + [dict(c) for _, c in CALLS] + [{"method": "resources/list"}]
        a, err = run(d(rel), frames, env, "2024-11-05", wait=1.0)
        res["answers"] = a
        res["labels"] = ["init", "tools/list"] + [n for n, _ in CALLS] + ["resources/list"]
        res["stderr"] = err
        out[rel + ("+DTL" if sw else "")] = res
        print(rel, sw, "done", file=sys.stderr)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "survey.json"), "w") as fh:
    json.dump(out, fh, indent=1, ensure_ascii=False)
