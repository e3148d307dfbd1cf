#!/usr/bin/env bash
# The API check run by .ci/run: compares the public API of every library product with the
# last release, so a minor release never breaks two SDKs that share one copy of EasyNetwork.
#
#   Scripts/check-api-breakage.sh [TAG]
#
# The last release is the highest SemVer release tag (X.Y.Z or vX.Y.Z, no pre-release) by
# version, or TAG. A shallow clone, or one without such a tag, first fetches the tags (and
# the history) from `origin` when it has one. Without a release tag the check is skipped
# with a message, not failed. A release that breaks the API on purpose (a major version)
# lists the accepted breaks, as printed by the check, in .ci/api-breakage-allowlist.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

skip() { echo "API check skipped: $*"; exit 0; }

# The highest X.Y.Z / vX.Y.Z tag by version (not by text: 0.10.0 is above 0.9.0).
last_release() {
    git tag -l | { grep -E '^v?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$' || true; } |
        awk '{ v = $0; sub(/^v/, "", v); split(v, p, "."); printf "%09d.%09d.%09d %s\n", p[1], p[2], p[3], $0 }' |
        sort | tail -n 1 | cut -d ' ' -f 2
}

git rev-parse --git-dir > /dev/null 2>&1 || skip "no release tag (not a git clone)"
tag=${1:-}
if [[ -z "$tag" ]]; then
    tag=$(last_release)
    shallow=$(git rev-parse --is-shallow-repository)
    if [[ -z "$tag" || "$shallow" == true ]] && git remote get-url origin > /dev/null 2>&1; then
        # CI clones are often shallow and without tags: fetch both before deciding.
        fetch=(git fetch --quiet --tags origin)
        [[ "$shallow" == true ]] && fetch=(git fetch --quiet --unshallow --tags origin)
        "${fetch[@]}" || echo "API check: could not fetch tags from origin; using the tags in this clone"
        tag=$(last_release)
    fi
fi
[[ -n "$tag" ]] || skip "no release tag (no tag X.Y.Z or vX.Y.Z in this clone)"

echo "API check: the public API against the last release, $tag"
args=("$tag")
allowlist=.ci/api-breakage-allowlist.txt
[[ -f "$allowlist" ]] && args+=(--breakage-allowlist-path "$allowlist")
swift package diagnose-api-breaking-changes "${args[@]}"
