#!/bin/sh
# mk.sh OUT CODE_REL_DIR TREE_REL_DIR [ZOD_FROM_REL_DIR] [SDK_FROM_REL_DIR]
# Builds CODE's package on TREE's node_modules (copy), optionally swapping zod and/or the SDK dir from another tree.
set -e
B=${SEQTHINK_CONFORMANCE_CACHE:-/work/cache-targets}/npm/@modelcontextprotocol__server-sequential-thinking
P=node_modules/@modelcontextprotocol/server-sequential-thinking
OUT=$1; CODE=$2; TREE=$3; ZOD=$4; SDK=$5
rm -rf "$OUT"; mkdir -p "$OUT"
cp -r "$B/$TREE/node_modules" "$OUT/node_modules"
rm -rf "$OUT/$P"; cp -r "$B/$CODE/$P" "$OUT/$P"
if [ -n "$ZOD" ]; then rm -rf "$OUT/node_modules/zod"; cp -r "$B/$ZOD/node_modules/zod" "$OUT/node_modules/zod"; fi
if [ -n "$SDK" ]; then rm -rf "$OUT/node_modules/@modelcontextprotocol/sdk"; cp -r "$B/$SDK/node_modules/@modelcontextprotocol/sdk" "$OUT/node_modules/@modelcontextprotocol/sdk"; fi
printf "%s: code %s sdk %s zod %s\n" "$OUT" "$(node -p "require('$OUT/$P/package.json').version")" "$(node -p "require('$OUT/node_modules/@modelcontextprotocol/sdk/package.json').version")" "$(node -p "require('$OUT/node_modules/zod/package.json').version")"
