#!/bin/sh
# Gate the six real third-party servers of fixtures/third_party.yaml again, into OUT, as round 9's audit did
# (reports/third-party/AUDIT-round9.md: its "before" column is /work/third-before at c43783d; the lead fills
# "after" from this script's OUT at the merged tree). Needs the builds of
# `python -m scripts.third_party build --mirrors DIR` under .cache/third/build.
set -eu
OUT=${1:?usage: scripts/third_party_regate.sh OUT}
: "${SEQTHINK_CONFORMANCE_CACHE:?export SEQTHINK_CONFORMANCE_CACHE (shared npm installs)}"
# arben-adm-py keeps every thought in ~/.mcp_sequential_thinking across processes: give the gate a home of
# its own, empty, rather than deleting anything in the user's.
HOME=$(mktemp -d)
export HOME
exec python -m scripts.third_party gate --seed 1 --out "$OUT"
