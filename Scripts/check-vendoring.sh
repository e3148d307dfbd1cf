#!/usr/bin/env bash
# The vendoring check run by .ci/run: writes two renamed copies of EasyNetwork's core with
# Scripts/vendor.sh (AcmeNet, BetaNet) into Examples/VendoringCheck/Vendored, builds the
# package there (two SDKs, each with its copy, and an app that links both and EasyNetwork
# itself), requires a build without warnings, and runs the app, which sends requests through
# all three copies to a loopback server and checks that no module-specific name is shared.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
check="$root/Examples/VendoringCheck"

"$root/Scripts/vendor.sh" AcmeNet "$check/Vendored/AcmeNet"
"$root/Scripts/vendor.sh" BetaNet "$check/Vendored/BetaNet"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! swift build --package-path "$check" > "$log" 2>&1; then
    cat "$log" >&2
    echo "check-vendoring.sh: the build failed" >&2
    exit 1
fi
if grep -E "warning:" "$log"; then
    echo "check-vendoring.sh: the build printed warnings" >&2
    exit 1
fi
timeout 120 "$(swift build --package-path "$check" --show-bin-path)/VendoringCheck"
