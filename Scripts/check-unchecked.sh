#!/usr/bin/env bash
# Every `@unchecked Sendable` in Sources/ says why it is true: a comment containing
# `unchecked:` on its line or within the three lines after it (e.g. "// unchecked: `state`
# guarded by `lock`"). A Sendable conformance the compiler cannot check must be argued.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 - <<'PY'
import pathlib, sys
problems = []
count = 0
for path in sorted(pathlib.Path("Sources").rglob("*.swift")):
    lines = path.read_text(encoding="utf-8").split("\n")
    for index, line in enumerate(lines):
        code = line.split("//", 1)[0]
        if "@unchecked Sendable" not in code:
            continue
        count += 1
        window = lines[index:index + 4]
        if not any("unchecked:" in part for part in window):
            problems.append(f"{path}:{index + 1}: @unchecked Sendable without an `unchecked:` reason")
for problem in problems:
    print(problem, file=sys.stderr)
print(f"@unchecked Sendable: {count} in Sources/, {len(problems)} without a reason")
sys.exit(1 if problems else 0)
PY
