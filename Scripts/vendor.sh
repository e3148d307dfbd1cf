#!/usr/bin/env bash
# Writes a renamed copy of EasyNetwork's core module for a binary SDK (an XCFramework) to
# compile into itself, so that two SDKs that each carry a copy never share a module name,
# an Objective-C class name, a notification name, a cache folder, a queue label or a
# temporary file name.
#
#   Scripts/vendor.sh PREFIX DEST
#
#   PREFIX  the copy's module name, a Swift identifier (AcmeNet)
#   DEST    the folder for the copy's sources (a target folder of your SDK); created, or
#           replaced when it holds a copy this script wrote before
#
# Copies every .swift file under Sources/EasyNetwork (DocC catalogs aside), keeping the
# folders, and rewrites the word EasyNetwork (the module's name: module-qualified names,
# queue labels, the NSError domain, the cache folder, temporary file names, the log prefix)
# to PREFIX, and the word easynetwork (the notification com.easynetwork.*) to PREFIX in
# lower case. Names that only begin with EasyNetwork (EasyNetworkService) are kept: your
# code changes its import only.
# Compile DEST as module PREFIX and import it with `internal import PREFIX` in your SDK.
# Needs only bash, perl, find and grep.
set -euo pipefail

usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'; }
if [[ "${1:-}" == -h || "${1:-}" == --help ]]; then usage; exit 0; fi
if (($# != 2)); then usage >&2; exit 2; fi
prefix=$1 dest=$2
die() { echo "vendor.sh: $*" >&2; exit 1; }

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source_dir="$root/Sources/EasyNetwork"
marker=".easynetwork-vendored"   # hidden: SwiftPM and Xcode ignore it

[[ "$prefix" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || die "PREFIX '$prefix' is not a Swift identifier"
[[ "$prefix" != EasyNetwork* ]] || die "PREFIX must not begin with EasyNetwork (that is the original's name)"
lower=$(printf '%s' "$prefix" | tr '[:upper:]' '[:lower:]')
[[ "$lower" != easynetwork* ]] || die "PREFIX must not begin with EasyNetwork in any case"
[[ -d "$source_dir" ]] || die "no $source_dir"
# A module named like one of its own types makes `PREFIX.Type` ambiguous.
if grep -rqE "(class|struct|enum|protocol|actor|typealias|func|var|let|case) +$prefix([^A-Za-z0-9_]|$)" \
    --include='*.swift' "$source_dir"; then
    die "PREFIX '$prefix' is also a name declared inside the module; choose another"
fi

# DEST: never delete a folder this script did not write.
if [[ -e "$dest" ]]; then
    [[ -d "$dest" ]] || die "DEST '$dest' exists and is not a folder"
    if [[ -n "$(ls -A "$dest")" && ! -f "$dest/$marker" ]]; then
        die "DEST '$dest' is not empty and was not written by this script; not touching it"
    fi
fi
case "$(cd "$(dirname "$dest")" 2>/dev/null && pwd)/$(basename "$dest")" in
    "$source_dir"|"$source_dir"/*) die "DEST must lie outside Sources/EasyNetwork" ;;
esac

revision=$(git -C "$root" describe --tags --always --dirty 2>/dev/null || echo unknown)
staging=$(mktemp -d "${TMPDIR:-/tmp}/vendor.XXXXXX")
trap 'rm -rf "$staging"' EXIT

count=0
while IFS= read -r -d '' file; do
    relative=${file#"$source_dir"/}
    mkdir -p "$staging/$(dirname "$relative")"
    {
        echo "// Vendored from EasyNetwork $revision as module $prefix by Scripts/vendor.sh; do not edit."
        perl -pe "s/\\bEasyNetwork\\b/$prefix/g; s/\\beasynetwork\\b/$lower/g" "$file"
    } > "$staging/$relative"
    count=$((count + 1))
done < <(find "$source_dir" -name '*.docc' -prune -o -name '*.swift' -type f -print0)
((count > 0)) || die "no Swift sources under $source_dir"

# Whatever still names the module in another spelling would be shared by every copy: stop.
# (Line 1 is the provenance comment written above.)
if leftovers=$(grep -rniw --include='*.swift' 'easy[ _-]\{0,1\}network' "$staging" | grep -v '^[^:]*:1:'); then
    echo "$leftovers" | sed "s|$staging/||" >&2
    die "the lines above still name EasyNetwork; teach this script to rewrite them"
fi

printf 'prefix %s\nrevision %s\n' "$prefix" "$revision" > "$staging/$marker"
rm -rf "$dest"
mkdir -p "$(dirname "$dest")"
cp -R "$staging" "$dest"
chmod 755 "$dest"

echo "vendor.sh: wrote $count files of EasyNetwork $revision to $dest as module $prefix."
skipped=$(find "$source_dir" -name '*.docc' -prune -print -o -type f ! -name '*.swift' -print | sed "s|$source_dir/||")
if [[ -n "$skipped" ]]; then
    echo "Not copied (not Swift sources):"
    echo "$skipped" | sed 's/^/  /'
fi
if [[ -f "$source_dir/PrivacyInfo.xcprivacy" ]]; then
    categories=$( { grep -o 'NSPrivacyAccessedAPICategory[A-Za-z]*' "$source_dir/PrivacyInfo.xcprivacy" || true; } | sort -u | tr '\n' ' ' | sed 's/ $//')
    echo "Privacy: merge the entries of Sources/EasyNetwork/PrivacyInfo.xcprivacy (${categories:-no required-reason APIs}) into your SDK's PrivacyInfo.xcprivacy."
fi
