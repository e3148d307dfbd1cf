#!/usr/bin/env bash
# The privacy manifest check run by .ci/run:
# - every PrivacyInfo.xcprivacy in the repository passes `plutil -lint`;
# - every library module (Sources/<Module>, the testing kit aside) has one at its root;
# - each manifest says no tracking, no tracking domains, no collected data, and declares,
#   with at least one reason each, exactly the required-reason API categories that the
#   Swift sources in its folder call (a manifest in a subfolder, such as Cache/, belongs to
#   the module that folder will become and is checked against that folder alone).
# The categories and their APIs follow Apple's "Describing use of required reason API".
set -euo pipefail
cd "$(dirname "$0")/.."

categories=(SystemBootTime FileTimestamp DiskSpace ActiveKeyboards UserDefaults)
patterns=(
    '\b(systemUptime|mach_absolute_time)\b'
    '(creationDate|[mM]odificationDate|getattrlist|\b[fl]?stat(at)?\()'
    '(volume(Available|Total)Capacity|systemFreeSize|systemSize|\bf?statv?fs\()'
    '\bactiveInputModes\b'
    '\b(NS)?UserDefaults\b'
)

failures=0
fail() { echo "check-privacy.sh: $*" >&2; failures=$((failures + 1)); }

manifests=()
while IFS= read -r -d '' file; do manifests+=("$file"); done < <(
    find . -name '*.xcprivacy' -not -path '*/.build*' -not -path './Examples/VendoringCheck/Vendored/*' -print0 | sort -z)

for module in Sources/*/; do
    module=${module%/}
    [[ "$module" == *Testing ]] && continue
    [[ -f "$module/PrivacyInfo.xcprivacy" ]] || fail "$module has no PrivacyInfo.xcprivacy (every library module ships one)"
done

for manifest in ${manifests[@]+"${manifests[@]}"}; do
    plutil -lint "$manifest" || { fail "$manifest is not a valid property list"; continue; }
    folder=$(dirname "$manifest")
    value() { plutil -extract "$1" "$2" -o - "$manifest" 2>/dev/null || echo "(missing)"; }
    [[ "$(value NSPrivacyTracking raw)" == false ]] || fail "$manifest: NSPrivacyTracking must be false"
    [[ "$(value NSPrivacyTrackingDomains json)" == "[]" ]] || fail "$manifest: NSPrivacyTrackingDomains must be empty"
    [[ "$(value NSPrivacyCollectedDataTypes json)" == "[]" ]] || fail "$manifest: NSPrivacyCollectedDataTypes must be empty"

    declared=()
    index=0
    while type=$(plutil -extract "NSPrivacyAccessedAPITypes.$index.NSPrivacyAccessedAPIType" raw -o - "$manifest" 2>/dev/null); do
        declared+=("${type#NSPrivacyAccessedAPICategory}")
        plutil -extract "NSPrivacyAccessedAPITypes.$index.NSPrivacyAccessedAPITypeReasons.0" raw -o - "$manifest" > /dev/null 2>&1 ||
            fail "$manifest: $type has no reason"
        index=$((index + 1))
    done

    for i in "${!categories[@]}"; do
        category=${categories[$i]}
        # Calls outside comments, in the Swift sources of this manifest's folder.
        uses=$(grep -rnE --include='*.swift' "${patterns[$i]}" "$folder" | grep -vE '^[^:]+:[0-9]+:[[:space:]]*//' || true)
        is_declared=0
        for d in ${declared[@]+"${declared[@]}"}; do [[ "$d" == "$category" ]] && is_declared=1; done
        if [[ -n "$uses" && $is_declared == 0 ]]; then
            echo "$uses" | head -5 >&2
            fail "$manifest does not declare NSPrivacyAccessedAPICategory$category, used above"
        elif [[ -z "$uses" && $is_declared == 1 ]]; then
            fail "$manifest declares NSPrivacyAccessedAPICategory$category, which nothing under $folder uses"
        fi
    done
    echo "$manifest: declares ${declared[*]:-no required-reason API}"
done

((failures == 0)) || { echo "check-privacy.sh: $failures problem(s)" >&2; exit 1; }
