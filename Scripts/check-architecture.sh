#!/usr/bin/env bash
# Fails when docs/ARCHITECTURE.md names a file or a type that does not exist (run by .ci/run).
#
#   Scripts/check-architecture.sh [FILE.md]...     (default: docs/ARCHITECTURE.md)
#
# Reads every `code span` of the document:
# - a file name (`x.swift`, `x.sh`, `x.md`, `x.xcprivacy`, `x.podspec`, with or without folders)
#   must exist: as a path from the repository's root, from Sources/ or Sources/EasyNetwork/ (the
#   tables' base folders), or by name anywhere in the repository when it has no folder;
#   a folder (`Sources/EasyNetwork/…`) must exist from the root, Sources/ or Tests/; a placeholder
#   (`X`, `<name>`, `EasyNetworkX`) and an HTTP header (`If-Range`) are not checked;
# - a name that starts with a capital (`RequestExchange`, `TokenPlugIn.retry`,
#   `EasyNetworkService.start(_:sink:)`) must be declared in Sources/, Tests/, Examples/ or
#   Benchmarks/ (class, struct, enum, protocol, actor, typealias, or a module's folder), unless
#   it is one of the platform's names listed below; each member after a declared type
#   (`.retry`, `.start`) must be declared somewhere there too (func, var, let, case, init).
# Prints every missing name with its line, and exits 1 if there is one.
set -euo pipefail
cd "$(dirname "$0")/.."
files=("$@")
((${#files[@]})) || files=(docs/ARCHITECTURE.md)

python3 - "${files[@]}" <<'PY'
import os, re, sys

ROOTS = ["Sources", "Tests", "Examples", "Benchmarks"]
FILE = re.compile(r"^[\w+./-]+\.(swift|sh|md|xcprivacy|podspec|rb|txt)$")
# Names of the platform and the toolchain that the document may use as they are.
PLATFORM = set("""
Any AnyObject Array Bool Character Data Date Dictionary Double Error Float Int Int64 Never Optional
Result Sendable Set String UInt8 URL Void CancellationError Task MainActor
DispatchQueue DispatchTime DispatchWorkItem Thread
Foundation FoundationNetworking Dispatch XCTest XCTestCase
URLSession URLSessionConfiguration URLSessionTask URLSessionDataTask URLSessionDelegate URLRequest URLResponse
HTTPURLResponse URLError URLCache URLProtocol URLComponents InputStream OperationQueue Operation BlockOperation NSObject
Progress NotificationCenter Notification NSError NSLock JSONDecoder JSONEncoder JSONSerialization ProcessInfo
FileManager Decodable Encodable Codable CustomNSError LocalizedError
Package PackageDescription
Range Authorization Cookie ETag
Core
""".split())  # the last two lines: HTTP header names, the podspec's default subspec

declared, members, modules, paths, names = set(), set(), set(), set(), set()
decl = re.compile(r"\b(?:class|struct|enum|protocol|actor|typealias|associatedtype)\s+(\w+)")
member = re.compile(r"\b(?:func|var|let|case|static func|static let|static var)\s+`?(\w+)")
for root in ROOTS:
    for folder, _, entries in os.walk(root):
        if "/." in folder or folder.startswith("."):
            continue
        if folder.count("/") == 1 and root in ("Sources", "Tests"):
            modules.add(os.path.basename(folder))
        for entry in entries:
            path = os.path.join(folder, entry)
            paths.add(path)
            names.add(entry)
            if entry.endswith(".swift"):
                text = open(path, encoding="utf-8").read()
                declared.update(decl.findall(text))
                members.update(member.findall(text))
                if re.search(r"\binit\s*[(<]", text):
                    members.add("init")
for folder, _, entries in os.walk("."):
    if "/.build" in folder or "/.git" in folder:
        continue
    for entry in entries:
        paths.add(os.path.normpath(os.path.join(folder, entry)))
        names.add(entry)

def file_exists(token):
    token = token.rstrip("/")
    if "/" not in token:
        return token in names
    return any(os.path.normpath(os.path.join(base, token)) in paths
               for base in ["", "Sources", "Sources/EasyNetwork", "Tests"])

problems = []
for document in sys.argv[1:]:
    for number, line in enumerate(open(document, encoding="utf-8"), 1):
        for token in re.findall(r"`([^`]+)`", line):
            token = token.strip()
            if "<" in token or re.fullmatch(r"[A-Z]", token) or "EasyNetworkX" in token:
                continue
            if FILE.match(token):
                if not file_exists(token):
                    problems.append(f"{document}:{number}: no file {token}")
                continue
            if "/" in token and " " not in token:
                folder = token.rstrip("…").rstrip("/")
                if not any(os.path.exists(os.path.join(base, folder)) for base in ["", "Sources", "Tests"]):
                    problems.append(f"{document}:{number}: no folder {token}")
                continue
            if "-" in token.split("(")[0]:
                continue  # an HTTP header (`Content-Length`, `If-Range`) or a flag
            match = re.match(r"^([A-Z]\w*)((?:\.\w+)*)", token)
            if not match or " " in token.split("(")[0]:
                continue
            head, rest = match.group(1), match.group(2)
            if head not in declared and head not in modules and head not in PLATFORM:
                problems.append(f"{document}:{number}: no type {head} (in `{token}`)")
                continue
            if head in PLATFORM and head not in declared or head in modules:
                continue  # a platform name's members, or a module's label (`EasyNetwork.timers`)
            for name in [part for part in rest.split(".") if part]:
                if name not in members and name not in declared:
                    problems.append(f"{document}:{number}: no member {name} (in `{token}`)")
if problems:
    print("\n".join(problems))
    print(f"check-architecture: {len(problems)} name(s) that do not exist", file=sys.stderr)
    sys.exit(1)
print(f"check-architecture: every file and type named in {', '.join(sys.argv[1:])} exists")
PY
