#!/usr/bin/env bash
# The API check run by .ci/run: compares the public API of every library product with the
# last release, so a minor release never breaks two SDKs that share one copy of EasyNetwork.
#
#   Scripts/check-api-breakage.sh [TAG]
#
# The last release is the highest SemVer release tag (X.Y.Z or vX.Y.Z, no pre-release) by
# version among the tags HEAD contains (a branch made before 0.3.0 is compared with 0.2.0,
# not with 0.3.0; the commit tagged 0.3.0 itself also with 0.2.0), or TAG. A shallow clone, or one without such a tag, first fetches the
# tags (and the history) from `origin` when it has one. Without a release tag the check is
# skipped with a message, not failed. It builds the release's sources once more (in
# .build/<triple>/apidiff/), about 1.5 min on 2 cores; a product that the release did not
# have yet is skipped. Any break fails the check, with the breaks listed as `💔 API breakage:`.
#
# A release that breaks the API on purpose (a major version) lists the accepted breaks in
# .ci/api-breakage-allowlist.txt, one a line, copied as printed (the leading `💔 ` may stay);
# lines starting with `#` and blank lines are ignored. (swift-api-digester itself takes only
# bare `API breakage: ...` lines: a line with the emoji, or any `#` line, would make it
# accept nothing, so this script passes it the cleaned lines.)
set -euo pipefail
cd "$(dirname "$0")/.."

skip() { echo "API check skipped: $*"; exit 0; }

# The highest X.Y.Z / vX.Y.Z tag that HEAD contains, by version (0.10.0 is above 0.9.0),
# leaving out a tag on HEAD itself: a release commit is checked against the release before it.
last_release() {
    git tag -l --merged HEAD --no-contains HEAD | { grep -E '^v?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$' || true; } |
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
[[ -n "$tag" ]] || skip "no release tag (no tag X.Y.Z or vX.Y.Z in the history of HEAD)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "API check: the public API against the last release, $tag"
args=("$tag")
allowlist=.ci/api-breakage-allowlist.txt
if [[ -f "$allowlist" ]]; then
    sed -E -e 's/^[[:space:]]+//' -e 's/^💔[[:space:]]*//' -e 's/[[:space:]]+$//' -e '/^(#|$)/d' \
        "$allowlist" > "$work/allowlist"
    if [[ -s "$work/allowlist" ]]; then
        echo "API check: accepting the $(wc -l < "$work/allowlist") break(s) listed in $allowlist"
        args+=(--breakage-allowlist-path "$work/allowlist")
    fi
fi

status=0
swift package diagnose-api-breaking-changes "${args[@]}" 2>&1 | tee "$work/log" || status=$?
if (( status != 0 )); then
    breaks=$(grep -c "API breakage:" "$work/log" || true)
    if (( breaks > 0 )); then
        cat >&2 <<EOF
API check FAILED: $breaks public API break(s) against release $tag, listed above (💔).
  A patch or minor release must not break source compatibility (README, Versioning): make
  the change additive instead (keep the old declaration, deprecated, next to the new one;
  no new case in a public enum). Only a major release may break on purpose: then copy the
  lines above into $allowlist.
EOF
    else
        echo "API check FAILED: could not compare with release $tag (the error above is not an API break)" >&2
    fi
    exit 1
fi
echo "API check: no break against release $tag"
