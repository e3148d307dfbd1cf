#!/usr/bin/env bash
# The CocoaPods check run by .ci/run. CocoaPods itself does not install here, so:
# 1. Scripts/check-podspec.rb evaluates EasyNetwork.podspec with a stand-in for the Pod::Spec
#    DSL and checks it against `swift package dump-package`: one subspec per library product
#    and per shared target a product's target depends on (EasyNetworkDigest), and no other, each subspec's source_files exactly its module's Swift files, dependencies
#    mirroring the target's, every module's PrivacyInfo.xcprivacy in a resource bundle,
#    deployment targets = Package.swift's platforms, Swift 6, the LICENSE file, and the version
#    = CHANGELOG.md's top `## [x.y.z]` section (when there is one) = a release tag on HEAD
#    (when there is one), and not below the last release tag in HEAD's history.
# 2. It type-checks what CocoaPods builds for a target that selects every subspec: all their
#    sources as ONE module named EasyNetwork, with `-D COCOAPODS` (CocoaPods adds it to every
#    Swift pod target) and the podspec's OTHER_SWIFT_FLAGS. Any error or warning fails: an
#    unguarded `import EasyNetwork` in an optional module, a missing `-package-name`, two
#    modules declaring the same name. PODSPEC_SKIP_COMPILE=1 skips this step.
# Never runs `pod` (CocoaPods is not needed, nothing is skipped without it) and needs no
# network, only Ruby. Without Ruby it tries `apt-get install ruby` (as root; that step needs
# the network), else it fails saying so.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v ruby >/dev/null; then
    if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
        echo "check-podspec.sh: installing ruby (apt-get)"
        if ! { apt-get install -y ruby >/dev/null 2>&1 ||
            { apt-get update >/dev/null 2>&1 && apt-get install -y ruby >/dev/null 2>&1; }; }; then
            echo "check-podspec.sh: needs ruby, and apt-get could not install it (no network?)" >&2
            exit 1
        fi
    else
        echo "check-podspec.sh: needs ruby (apt-get install ruby)" >&2
        exit 1
    fi
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
swift package dump-package >"$work/package.json"

ruby Scripts/check-podspec.rb EasyNetwork.podspec "$work/package.json"

if [[ "${PODSPEC_SKIP_COMPILE:-}" == 1 ]]; then
    echo "check-podspec.sh: one-module type-check skipped (PODSPEC_SKIP_COMPILE=1)"
    exit 0
fi
ruby Scripts/check-podspec.rb EasyNetwork.podspec "$work/package.json" --compile >"$work/compile.txt"
module=$(sed -n 1p "$work/compile.txt")
read -r -a flags <<<"$(sed -n 2p "$work/compile.txt")"
mapfile -t sources < <(sed -n '3,$p' "$work/compile.txt")
if ! swiftc -typecheck -parse-as-library -module-name "$module" "${flags[@]}" "${sources[@]}" >"$work/log" 2>&1 \
    || grep -qE "(error|warning):" "$work/log"; then
    grep -E "^[^ ].*(error|warning):" "$work/log" | sort -u | head -20 >&2 || tail -20 "$work/log" >&2
    echo "check-podspec.sh: every subspec as one module '$module' (swiftc ${flags[*]}) does not compile cleanly" >&2
    exit 1
fi
echo "every subspec as one module '$module' (${#sources[@]} files, swiftc ${flags[*]}): no error, no warning"
