#!/usr/bin/env bash
# A quick proxy for what the core adds to the seed program (seconds, not minutes): builds the
# EasyNetwork module alone in release and sums its objects' code and data (.text, .rodata,
# .data, .data.rel.ro), per object and in all.
#
#   Benchmarks/core-size.sh [--top N] [--module NAME]
#
# --module NAME measures another module of the package the same way (an opt-in product such as
# EasyNetworkPlugins, or a shared target such as EasyNetworkBackoff): what importing it adds
# to a program beyond the core, as code and data and functions.
#
# Why a sum over every object is the right proxy on Linux: swiftc emits one .text section per
# source file (no -function-sections), and every file declares a type whose runtime record
# (swift5_types, swift5_protocol_conformances) the linker must keep; so ld --gc-sections
# drops nothing of the module and a program that imports EasyNetwork links all of it. A byte
# saved anywhere in the core is a byte saved in the seed program; code the seed never runs
# costs as much as code it does. Benchmarks/footprint.sh stays the measure the budgets judge.
# It also counts the module's functions (unwind entries, FDEs): on ELF each costs about 44 bytes
# of .eh_frame and .eh_frame_hdr in the stripped file beyond its code, so a thunk, an accessor
# or a closure split out of a function shows there even when the code bytes do not move.
set -euo pipefail
top=15
module=EasyNetwork
while (($#)); do
    case "$1" in
        --top|--module)
            [[ -n "${2:-}" ]] || { echo "core-size.sh: $1 wants a value (usage: core-size.sh [--top N] [--module NAME])" >&2; exit 2; }
            if [[ "$1" == --top ]]; then top=$2; else module=$2; fi
            shift ;;
        *) echo "core-size.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
    shift
done
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[[ -d "$root/Sources/$module" ]] || { echo "core-size.sh: no module Sources/$module" >&2; exit 2; }
swift build -c release --package-path "$root" --target "$module" >/dev/null
dir="$root/.build/release/$module.build"
# Only the objects of today's sources: a file removed since an earlier build leaves its object.
find "$root/Sources/$module" -name '*.swift' | while read -r source; do
    object="$dir/$(basename "$source").o"
    [[ -f "$object" ]] || { echo "core-size.sh: no object for $source" >&2; exit 1; }
    fdes=$(readelf --debug-dump=frames "$object" 2>/dev/null | grep -c ' FDE ' || true)
    size -A "$object" | awk -v f="$(basename "$object" .swift.o)" -v n="$fdes" '
        $1 ~ /^\.text/ || $1 ~ /^\.rodata/ || $1 ~ /^\.data/ { total += $2 }
        END { printf "%d %s %d\n", total, f, n }'
done | sort -n -r > "${TMPDIR:-/tmp}/core-size.$$"
echo "largest files of $module, code and data (bytes):"
head -n "$top" "${TMPDIR:-/tmp}/core-size.$$" | awk '{ printf "  %8d  %5d fn  %s\n", $1, $3, $2 }'
awk -v m="$module" '{ t += $1; f += $3; n++ } END {
    printf "%s module: %d bytes (%.1f KB) of code and data in %d files\n", m, t, t / 1024, n
    printf "functions (unwind entries): %d (about %.1f KB more in a stripped ELF file)\n", f, f * 44 / 1024 }' "${TMPDIR:-/tmp}/core-size.$$"
rm -f "${TMPDIR:-/tmp}/core-size.$$"
