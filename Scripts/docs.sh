#!/usr/bin/env bash
# Builds the DocC documentation of every library product with the toolchain's own docc
# (no package plugin, no dependency) and fails on any warning.
#
#   Scripts/docs.sh [OUTPUT-DIR]      (default: .build-docs/site)
#
# For each library target with a catalog (Sources/<Target>/<Target>.docc): build it,
# extract its public symbol graph (swift-symbolgraph-extract), then
# `docc convert --warnings-as-errors`. Uses its own scratch
# path (.build-docs), so the symbol-graph flags never invalidate the normal build.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.build-docs/site}
mkdir -p "$out"
scratch=.build-docs
docc=$(command -v docc || xcrun --find docc 2>/dev/null || true)
[[ -n "$docc" ]] || { echo "docs.sh: docc not found in the toolchain" >&2; exit 1; }

targets=$(swift package dump-package | python3 -c '
import json, sys
package = json.load(sys.stdin)
library_targets = {t for p in package["products"] if "library" in p["type"] for t in p["targets"]}
print("\n".join(sorted(library_targets)))')

bin=$(swift build --scratch-path "$scratch" --show-bin-path)
triple=$(swift -print-target-info | python3 -c 'import json,sys; print(json.load(sys.stdin)["target"]["triple"])')
sdk=()
if command -v xcrun >/dev/null; then sdk=(-sdk "$(xcrun --show-sdk-path)"); fi

status=0
for target in $targets; do
    catalog="Sources/$target/$target.docc"
    if [[ ! -d "$catalog" ]]; then
        echo "docs.sh: $target has no catalog ($catalog)" >&2
        status=1
        continue
    fi
    graphs="$scratch/symbol-graphs/$target"
    rm -rf "$graphs" && mkdir -p "$graphs"
    echo "== $target: symbol graph"
    swift build --scratch-path "$scratch" --target "$target" >/dev/null
    swift-symbolgraph-extract -module-name "$target" -I "$bin/Modules" -I "$bin" \
        -target "$triple" "${sdk[@]}" -minimum-access-level public -output-dir "$graphs"
    # Every public symbol declared in our sources carries a /// comment (symbols that only
    # inherit a protocol requirement's comment, or have no source location, are exempt).
    python3 - "$graphs" <<'PY' || status=1
import glob, json, sys
missing = []
for path in glob.glob(sys.argv[1] + "/*.symbols.json"):
    for symbol in json.load(open(path))["symbols"]:
        if symbol.get("docComment") or symbol.get("sourceOrigin") or "location" not in symbol:
            continue
        where = symbol["location"]["uri"].rsplit("/", 1)[-1] + ":" + str(symbol["location"]["position"]["line"] + 1)
        missing.append(f"  {where}: {'.'.join(symbol['pathComponents'])} has no /// comment")
print("\n".join(missing) if missing else "  every public symbol is documented")
sys.exit(1 if missing else 0)
PY
    echo "== $target: docc convert"
    "$docc" convert "$catalog" \
        --additional-symbol-graph-dir "$graphs" \
        --fallback-display-name "$target" \
        --fallback-bundle-identifier "com.easynetwork.$target" \
        --output-path "$out/$target.doccarchive" \
        --warnings-as-errors || status=1
done
exit $status
