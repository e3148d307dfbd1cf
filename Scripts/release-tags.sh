#!/usr/bin/env bash
# Re-creates the release tags from CHANGELOG.md, so a copy without tags (a fresh clone of a
# repository that carries none, a copy made by a tool that drops them) can be installed by
# version (`from: "0.2.0"`) and checked against its last release (Scripts/check-api-breakage.sh).
# .ci/run calls it first.
#
#   Scripts/release-tags.sh [--dry-run]
#
# Every released section of CHANGELOG.md (`## [X.Y.Z] - DATE`) names a release. Its commit is
# the one its section records on a line of its own, `Release commit: <hash>` (the coordinator
# adds it when the tag is not on the commit that released the section); without that line, it
# is the commit that added the section's heading to CHANGELOG.md (the "release X.Y.Z" commit).
# For each release:
#   - the tag X.Y.Z exists at that commit: nothing to do;
#   - no tag X.Y.Z (nor vX.Y.Z): creates the lightweight tag X.Y.Z there (--dry-run: says so);
#   - the tag exists at another commit: an error (a tag is never moved; delete it by hand if
#     CHANGELOG.md is right);
#   - the commit is not in this clone (a shallow clone): skipped with a note.
# Exits 1 on an error, else 0. Needs git and a clone (not an exported archive).
set -euo pipefail
cd "$(dirname "$0")/.."

dry_run=0
case "${1:-}" in
    --dry-run) dry_run=1 ;;
    "") ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "release-tags.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
esac

if ! git rev-parse --git-dir > /dev/null 2>&1; then
    echo "release-tags: not a git clone; nothing to tag"
    exit 0
fi
[[ -f CHANGELOG.md ]] || { echo "release-tags: no CHANGELOG.md" >&2; exit 1; }

# "VERSION<TAB>RECORDED-COMMIT-OR-EMPTY" for every released section, newest first.
releases=$(awk '
    /^## \[[0-9]+\.[0-9]+\.[0-9]+\]/ {
        if (version != "") print version "\t" commit
        version = $0; sub(/^## \[/, "", version); sub(/\].*/, "", version); commit = ""; next
    }
    /^## / { if (version != "") print version "\t" commit; version = ""; next }
    version != "" && commit == "" && /^Release commit: *`?[0-9a-f]+`?/ {
        commit = $0; sub(/^Release commit: *`?/, "", commit); sub(/[^0-9a-f].*$/, "", commit)
    }
    END { if (version != "") print version "\t" commit }
' CHANGELOG.md)

if [[ -z "$releases" ]]; then
    echo "release-tags: CHANGELOG.md has no released section yet"
    exit 0
fi

status=0
while IFS=$'\t' read -r version recorded; do
    if [[ -n "$recorded" ]]; then
        commit=$(git rev-parse --verify --quiet "$recorded^{commit}" || true)
        how="recorded in CHANGELOG.md"
        if [[ -z "$commit" ]]; then
            echo "release-tags: $version: commit $recorded is not in this clone (shallow? try git fetch --unshallow); skipped"
            continue
        fi
    else
        # The oldest commit whose change to CHANGELOG.md added the heading.
        commit=$(git log --reverse --format=%H -F -S "## [$version]" -- CHANGELOG.md | head -n 1)
        how="the commit that added its heading to CHANGELOG.md"
        if [[ -z "$commit" ]]; then
            echo "release-tags: $version: no commit in this clone added its heading (shallow?); skipped"
            continue
        fi
    fi
    short=$(git rev-parse --short "$commit")
    existing=""
    for name in "$version" "v$version"; do
        if git rev-parse --verify --quiet "refs/tags/$name" > /dev/null; then
            existing=$name
            break
        fi
    done
    if [[ -n "$existing" ]]; then
        at=$(git rev-parse "refs/tags/$existing^{commit}")
        if [[ "$at" == "$commit" ]]; then
            echo "release-tags: $existing is at $short ($how)"
        else
            echo "release-tags: $existing is at $(git rev-parse --short "$at"), but CHANGELOG.md's $version is $short ($how); not moved" >&2
            status=1
        fi
    elif ((dry_run)); then
        echo "release-tags: would tag $version at $short ($how)"
    else
        git tag "$version" "$commit"
        echo "release-tags: tagged $version at $short ($how)"
    fi
done <<< "$releases"
exit $status
