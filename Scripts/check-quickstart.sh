#!/usr/bin/env bash
# The README's Quick start, as a newcomer uses it (run by .ci/run): a new package that depends
# on this one by path (the README's Install form), the Quick start's file compiled in a library
# target and, with its main.swift, in an executable target; the executable run against the
# demo's `--serve`. Fails when a block does not compile or the program does not print the
# sign-in the README promises.
#
#   Scripts/check-quickstart.sh [--keep]
#
# The blocks are read from README.md by their first line (`// Sources/YourSDK/SignIn.swift`,
# `// Sources/YourTool/main.swift`), so the check follows the README. The server runs on a free
# port, written into the copy in place of the README's 8765 (another program may hold that one).
# Needs the Swift toolchain and python3; builds the library once more (1-2 minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
keep=0
[[ "${1:-}" == --keep ]] && keep=1

work=$(mktemp -d "${TMPDIR:-/tmp}/quickstart.XXXXXX")
server_pid=""
cleanup() {
    if [[ -n "$server_pid" ]]; then kill "$server_pid" 2>/dev/null || true; fi
    if ((keep)); then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')

# The README's Swift blocks whose first line names a file: SignIn.swift, main.swift; and the
# typed request that follows the Quick start (it goes into the library).
python3 - "$work" "$port" <<'PY'
import os, re, sys
work, port = sys.argv[1], sys.argv[2]
readme = open("README.md", encoding="utf-8").read()
blocks = re.findall(r"```swift\n(.*?)```", readme, re.S)
def named(caption):
    found = [b for b in blocks if b.startswith(caption)]
    if len(found) != 1:
        sys.exit(f"check-quickstart: README.md has {len(found)} blocks starting with {caption!r}")
    return found[0].replace("127.0.0.1:8765", "127.0.0.1:" + port)
sign_in = named("// Sources/YourSDK/SignIn.swift")
main = named("// Sources/YourTool/main.swift")
typed = [b for b in blocks if "struct GetProfile: APIRequest" in b]
library = sign_in + ("\n" + typed[0] if typed else "")
for target, files in {"YourSDK": {"SignIn.swift": library},
                      "YourTool": {"SignIn.swift": library, "main.swift": main}}.items():
    os.makedirs(f"{work}/app/Sources/{target}", exist_ok=True)
    for name, text in files.items():
        open(f"{work}/app/Sources/{target}/{name}", "w", encoding="utf-8").write(text)
PY

cat > "$work/app/Package.swift" <<EOF
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "QuickStartCheck",
    dependencies: [
        .package(name: "EasyNetwork", path: "$root"),
    ],
    targets: [
        .target(name: "YourSDK", dependencies: [
            .product(name: "EasyNetwork", package: "EasyNetwork"),
        ]),
        .executableTarget(name: "YourTool", dependencies: [
            .product(name: "EasyNetwork", package: "EasyNetwork"),
        ]),
    ]
)
EOF

echo "check-quickstart: building the Quick start as a library and as an executable (in $work/app)"
if ! swift build --package-path "$work/app" > "$work/build.log" 2>&1; then
    cat "$work/build.log" >&2
    echo "check-quickstart: the README's Quick start does not compile" >&2
    exit 1
fi
if grep -E "warning:" "$work/build.log" | grep -v "^warning: 'main'" ; then
    echo "check-quickstart: the Quick start compiles with warnings" >&2
    exit 1
fi

swift build --product EasyNetworkDemo > "$work/demo-build.log" 2>&1 || { cat "$work/demo-build.log" >&2; exit 1; }
: > "$work/serve.log"
"$(swift build --show-bin-path)/EasyNetworkDemo" --serve --port "$port" > "$work/serve.log" 2>&1 &
server_pid=$!
for _ in $(seq 50); do
    grep -q "Serving the demo backend" "$work/serve.log" && break
    sleep 0.1
done
grep -q "Serving the demo backend" "$work/serve.log" || { cat "$work/serve.log" >&2; echo "check-quickstart: the demo's --serve did not start" >&2; exit 1; }

output=$(timeout 60 "$(swift build --package-path "$work/app" --show-bin-path)/YourTool" 2>&1) || {
    echo "$output" >&2
    echo "check-quickstart: the Quick start's executable failed or did not end" >&2
    exit 1
}
echo "check-quickstart: the executable printed: $output"
if [[ "$output" != "signed in as ana, token token-ana" ]]; then
    echo "check-quickstart: the README promises 'signed in as ana, token token-ana'" >&2
    exit 1
fi
echo "check-quickstart: the README's Quick start compiles in a library and an executable, and runs"
