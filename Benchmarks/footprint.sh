#!/usr/bin/env bash
# What EasyNetwork adds to an executable: builds small release programs in a temporary
# package (the library by local path, no network) and prints their stripped sizes (budgets)
# and the sums of their allocated sections (which show a change the page-aligned file hides).
#
#   Benchmarks/footprint.sh [--report | --check] [--markdown] [--budget NAME=KB]...
#                           [--by-type [N]] [--keep] [-- extra swift build arguments]
#
# Rows: plain URLSession (the floor), the same request in the seed's style written by hand with no
# library (a minimal asynchronous Operation and a subclass: information, what the style costs before
# any library), the README's one-request seed program importing only
# EasyNetwork, the seed program plus each other library product of the package (read from
# `swift package dump-package`; the testing kit aside), and the seed program plus all of them.
# Then what each further endpoint costs an SDK, in three styles: the seed's (a request class, a
# mapper and a ServiceOperation subclass per endpoint), the typed one (an APIRequest with a
# Decodable response, awaited with NetworkQueue.send) and the ad hoc one (an AdHocRequest value
# sent with `as:` a Decodable type): programs with 1 and 11 endpoints of a style, the
# difference divided by 10.
# Two measures per row: the stripped file, and its code and data (.text, .rodata, .data and
# .data.rel.ro: what Apple platforms carry too, without ELF's unwind, symbol and relocation
# tables). Budgets (issues 13 and 31, KB = 1,024 bytes): the seed row may add 200 KB over the
# floor stripped (seed) and 120 KB of code and data (seed-code), the all-products row 500 KB
# stripped (all); --budget NAME=KB sets or adds one: seed, all or PRODUCT (what that product
# adds over the seed, e.g. --budget EasyNetworkCache=50) judge the stripped file, the same
# name with -code (seed-code, all-code, EasyNetworkCache-code) judges code and data.
# --report (the default) prints the table with a PASS/OVER column and exits 0 whatever the
# sizes; --check exits 3 when a row is over a budget. Either exits 1 if the build fails.
# --markdown also prints the table as Markdown, for README.
# --by-type [N] also prints the N (30) largest contributors to the seed program, by Swift type
# (symbol bytes, each byte once: aliases at one address and symbols inside others not twice).
# Needs only the Swift toolchain and binutils (nm, strip, size, readelf). Takes 1-3 minutes.
set -euo pipefail

top=0
keep=0
check=0
markdown=0
build_args=()
declare -A budget=([seed]=200 [seed-code]=120 [all]=500)
while (($#)); do
    case "$1" in
        --by-type)
            top=30
            if [[ "${2:-}" =~ ^[0-9]+$ ]]; then top=$2; shift; fi ;;
        --keep) keep=1 ;;
        --check) check=1 ;;
        --report) check=0 ;;
        --markdown) markdown=1 ;;
        --budget)
            [[ "${2:-}" =~ ^([A-Za-z0-9_-]+)=([0-9]+)$ ]] || { echo "footprint.sh: --budget wants NAME=KB" >&2; exit 2; }
            budget[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
            shift ;;
        --) shift; build_args=("$@"); break ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "footprint.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
    shift
done

for tool in swift nm strip size readelf; do
    command -v "$tool" >/dev/null || { echo "footprint.sh: '$tool' not found on PATH" >&2; exit 1; }
done

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/footprint.XXXXXX")
if ((keep)); then echo "keeping $work" >&2; else trap 'rm -rf "$work"' EXIT; fi

# Products: every library product but the testing kit, each with the module to import and
# one public, non-generic, top-level type (outside any #if) to reference so it is linked.
cat > "$work/products.swift" <<'EOF'
import Foundation
let root = URL(fileURLWithPath: CommandLine.arguments[1])
let data = FileHandle.standardInput.readDataToEndOfFile()
let package = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
let targets = package["targets"] as? [[String: Any]] ?? []

func publicType(inTarget name: String) -> String? {
    let target = targets.first { $0["name"] as? String == name }
    let dir = root.appendingPathComponent(target?["path"] as? String ?? "Sources/\(name)")
    let files = (FileManager.default.enumerator(atPath: dir.path)?.allObjects as? [String] ?? [])
        .filter { $0.hasSuffix(".swift") }.sorted()
    let kinds: Set<String> = ["class", "struct", "enum", "actor"]
    for file in files {
        guard let text = try? String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8) else { continue }
        var depth = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("#if") { depth += 1; continue }
            if line.hasPrefix("#endif") { depth -= 1; continue }
            guard depth == 0, line.hasPrefix("public ") || line.hasPrefix("open ") else { continue }
            let words = line.split(separator: " ").drop { !kinds.contains(String($0)) }
            guard words.count > 1 else { continue }
            let name = words[words.startIndex + 1].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
            let rest = words[words.startIndex + 1].dropFirst(name.count)
            if !name.isEmpty, !rest.hasPrefix("<") { return String(name) }
        }
    }
    return nil
}

print("package\t\(package["name"] as? String ?? "EasyNetwork")")
for product in package["products"] as? [[String: Any]] ?? [] {
    guard let type = product["type"] as? [String: Any], type["library"] != nil,
          let name = product["name"] as? String,
          let module = (product["targets"] as? [String])?.first else { continue }
    print([name, module, publicType(inTarget: module) ?? "-"].joined(separator: "\t"))
}
EOF
swift package dump-package --package-path "$root" > "$work/package.json"
swift "$work/products.swift" "$root" < "$work/package.json" > "$work/products.tsv"
package_name=$(sed -n 's/^package\t//p' "$work/products.tsv")

products=() modules=() types=()
while IFS=$'\t' read -r product module type; do
    [[ "$product" == package ]] && continue
    [[ "$product" == *Testing ]] && continue          # the testing kit is for test targets
    [[ "$module" == EasyNetwork ]] && continue        # the seed row is this one
    products+=("$product") modules+=("$module") types+=("$type")
done < "$work/products.tsv"

# The temporary package: one executable target per row.
pkg="$work/pkg"
mkdir -p "$pkg/Sources"

write_floor() {
    mkdir -p "$pkg/Sources/Floor"
    cat > "$pkg/Sources/Floor/main.swift" <<'EOF'
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct SignInItem { let userName: String; let token: String }

let session = URLSession(configuration: .ephemeral)
var request = URLRequest(url: URL(string: "http://127.0.0.1:8080/sign_in")!)
request.httpMethod = "POST"
request.setValue("application/json", forHTTPHeaderField: "Content-Type")
request.httpBody = try? JSONSerialization.data(withJSONObject: ["username": "u", "password": "p"])
session.dataTask(with: request) { data, _, error in
    let json = data.flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [String: Any]
    let item = (json?["userName"] as? String).flatMap { name in
        (json?["token"] as? String).map { SignInItem(userName: name, token: $0) }
    }
    DispatchQueue.main.async {
        print(item?.userName ?? error?.localizedDescription ?? "failed")
        exit(0)
    }
}.resume()
dispatchMain()
EOF
}

# The seed's style written by hand, with no library: the floor's request inside a minimal
# asynchronous Operation base class and a subclass of it on an OperationQueue. What the style
# itself costs (the Operation and NSObject method tables the two classes repeat, the symbols
# they import); the seed row over it is what the library adds. Information only: the budgets
# count from the floor.
write_operation_floor() {
    mkdir -p "$pkg/Sources/OperationFloor"
    cat > "$pkg/Sources/OperationFloor/main.swift" <<'EOF'
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct SignInItem { let userName: String; let token: String }

class BaseOperation: Operation, @unchecked Sendable {  // unchecked: its flags are read and written under `lock`
    private let lock = NSLock()
    private var _executing = false, _finished = false
    let session = URLSession(configuration: .ephemeral)
    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { lock.lock(); defer { lock.unlock() }; return _executing }
    override var isFinished: Bool { lock.lock(); defer { lock.unlock() }; return _finished }
    override func start() {
        if isCancelled { finish(); return }
        willChangeValue(forKey: "isExecuting"); lock.lock(); _executing = true; lock.unlock(); didChangeValue(forKey: "isExecuting")
        execute()
    }
    func execute() {}
    func finish() {
        willChangeValue(forKey: "isExecuting"); willChangeValue(forKey: "isFinished")
        lock.lock(); _executing = false; _finished = true; lock.unlock()
        didChangeValue(forKey: "isExecuting"); didChangeValue(forKey: "isFinished")
    }
}

final class SignInOperation: BaseOperation, @unchecked Sendable {  // unchecked: callbacks are set before it is queued
    var success: ((SignInItem) -> Void)?
    var failure: ((Error) -> Void)?
    let userName: String, password: String
    init(userName: String, password: String) { self.userName = userName; self.password = password }
    override func execute() {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:8080/sign_in")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try? JSONSerialization.data(withJSONObject: ["username": userName, "password": password])
        session.dataTask(with: request) { [weak self] data, _, error in
            let json = data.flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [String: Any]
            if let name = json?["userName"] as? String, let token = json?["token"] as? String {
                self?.success?(SignInItem(userName: name, token: token))
            } else {
                self?.failure?(error ?? URLError(.badServerResponse))
            }
            self?.finish()
        }.resume()
    }
}

let queue = OperationQueue()
let op = SignInOperation(userName: "u", password: "p")
op.success = { item in print(item.userName); exit(0) }
op.failure = { error in print(error.localizedDescription); exit(1) }
queue.addOperation(op)
dispatchMain()
EOF
}

# $1: target name; $2...: "module<TAB>type" to import and reference next to the seed code.
# The README's quick start types (the request, its mapper and the seed post's operation on
# the shared host; the README's passes a host of its own: the same code but for the
# initializer), their names ending in $1 ("" for the quick start itself).
seed_types() {
    cat <<EOF
struct SignInItem$1: ParsedItem { let userName: String; let token: String }

final class SignInRequest$1: BaseAPIRequest {
    private let userName: String, password: String
    init(userName: String, password: String) { self.userName = userName; self.password = password }
    var method: NetworkService.Method { .post }
    var query: NetworkService.QueryType { .json }
    var params: [String: Any]? { ["username$1": userName, "password": password] }
    var api: String { "/sign_in$1" }
    var headers: [String: String]? { defaultJsonHeader() }
}

final class SignInResponseMapper$1: ResponseMapper<SignInItem$1>, ResponseMapperProtocol {
    static func process(_ obj: Any?) throws -> SignInItem$1 {
        try process(obj, parse: { json in
            guard let name = json["userName$1"] as? String, let token = json["token"] as? String else { return nil }
            return SignInItem$1(userName: name, token: token)
        })
    }
}

final class SignInOperation$1: ServiceOperation, @unchecked Sendable {
    private let request: SignInRequest$1
    var success: ((SignInItem$1) -> Void)?
    var failure: ((Error) -> Void)?
    init(userName: String, password: String) {
        request = SignInRequest$1(userName: userName, password: password)
        super.init()                        // or super.init(configuration: someOtherHost)
    }
    override func execute() {
        service.request(request, success: { [weak self] in self?.handleSuccess(\$0) },
                        failure: { [weak self] in self?.handleFailure(\$0) })
    }
    private func handleSuccess(_ response: Any?) {
        do { success?(try SignInResponseMapper$1.process(response)); finish() } catch { handleFailure(error) }
    }
    private func handleFailure(_ error: Error) { failure?(error); finish() }
}
EOF
}

write_seed() {
    local target=$1; shift
    local dir="$pkg/Sources/$target" touches="" index=0 module type
    mkdir -p "$dir"
    {
        echo "import EasyNetwork"
        echo
        seed_types ""
    } > "$dir/SignIn.swift"
    for entry in "$@"; do
        IFS=$'\t' read -r module type <<< "$entry"
        index=$((index + 1))
        # One file per module: imports are per file, so type names cannot collide.
        {
            echo "import $module"
            if [[ "$type" == - ]]; then
                echo "func touch$index() {}  // no public type found: linked by the product dependency alone"
            else
                echo "func touch$index() { print(String(reflecting: $type.self)) }"
            fi
        } > "$dir/Touch$index.swift"
        touches+="touch$index()"$'\n'
    done
    cat > "$dir/main.swift" <<EOF
import EasyNetwork
import Foundation

${touches}HostConfiguration.baseURL("http://127.0.0.1:8080")
let op = SignInOperation(userName: "u", password: "p")
op.success = { item in print(item.userName); exit(0) }
op.failure = { error in print(error.localizedDescription); exit(1) }
NetworkQueue.shared.addOperation(op)
dispatchMain()
EOF
}

product_dep() { echo ".product(name: \"$1\", package: \"$package_name\")"; }

write_floor
write_operation_floor
write_seed Seed
targets=".executableTarget(name: \"Floor\"),"$'\n'
targets+="        .executableTarget(name: \"OperationFloor\"),"$'\n'
targets+="        .executableTarget(name: \"Seed\", dependencies: [$(product_dep EasyNetwork)]),"$'\n'
all_deps="$(product_dep EasyNetwork)"
all_touches=()
for i in "${!products[@]}"; do
    write_seed "Product$i" "${modules[$i]}"$'\t'"${types[$i]}"
    targets+="        .executableTarget(name: \"Product$i\", dependencies: [$(product_dep EasyNetwork), $(product_dep "${products[$i]}")]),"$'\n'
    all_deps+=", $(product_dep "${products[$i]}")"
    all_touches+=("${modules[$i]}"$'\t'"${types[$i]}")
done
write_seed All ${all_touches[@]+"${all_touches[@]}"}
targets+="        .executableTarget(name: \"All\", dependencies: [$all_deps]),"$'\n'

# Endpoints: $1 target, $2 style (seed|typed|adhoc), $3 how many. Endpoint i has its own request
# and result (seed style: the quick start's types, `seed_types i`); each runs only when the
# program is given more than i arguments (never, here), so the optimizer can drop none of them.
write_endpoints() {
    local dir="$pkg/Sources/$1" i
    mkdir -p "$dir"
    {
        echo "import EasyNetwork"
        echo "import Foundation"
        for ((i = 0; i < $3; i++)); do
            if [[ "$2" == seed ]]; then
                seed_types "$i"
                cat <<EOF
func run$i() {
    let op = SignInOperation$i(userName: "u", password: "p")
    op.success = { item in print(item.userName); exit(0) }
    op.failure = { error in print(error.localizedDescription); exit(1) }
    NetworkQueue.shared.addOperation(op)
}
EOF
            elif [[ "$2" == adhoc ]]; then
                cat <<EOF
struct Item$i: Decodable, Sendable { let userName: String; let token: String }
func run$i() {
    Task {
        do { print(try await NetworkQueue.shared.send(.post("/sign_in$i", json: ["username$i": "u", "password": "p"]), as: Item$i.self).userName); exit(0) }
        catch { print(error.localizedDescription); exit(1) }
    }
}
EOF
            else
                cat <<EOF
struct Item$i: Decodable, Sendable { let userName: String; let token: String }
struct Request$i: APIRequest {
    typealias Response = Item$i
    let userName: String, password: String
    var method: NetworkService.Method { .post }
    var query: NetworkService.QueryType { .json }
    var params: [String: Any]? { ["username$i": userName, "password": password] }
    var api: String { "/sign_in$i" }
}
func run$i() {
    Task {
        do { print(try await NetworkQueue.shared.send(Request$i(userName: "u", password: "p")).userName); exit(0) }
        catch { print(error.localizedDescription); exit(1) }
    }
}
EOF
            fi
            echo "if CommandLine.arguments.count > $((i + 1)) { run$i() }"
        done
        echo 'HostConfiguration.baseURL("http://127.0.0.1:8080")'
        echo "dispatchMain()"
    } > "$dir/main.swift"
    targets+="        .executableTarget(name: \"$1\", dependencies: [$(product_dep EasyNetwork)]),"$'\n'
}
write_endpoints Seed1 seed 1
write_endpoints Seed11 seed 11
write_endpoints Typed1 typed 1
write_endpoints Typed11 typed 11
write_endpoints Adhoc1 adhoc 1
write_endpoints Adhoc11 adhoc 11

cat > "$pkg/Package.swift" <<EOF
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Footprint",
    dependencies: [.package(name: "$package_name", path: "$root")],
    targets: [
        $targets    ],
    swiftLanguageModes: [.v6]
)
EOF

echo "building release programs in $pkg (a minute or more)..." >&2
if ! swift build -c release --package-path "$pkg" ${build_args[@]+"${build_args[@]}"} > "$work/build.log" 2>&1; then
    cat "$work/build.log" >&2
    echo "footprint.sh: the build failed" >&2
    exit 1
fi
bin=$(swift build -c release --package-path "$pkg" ${build_args[@]+"${build_args[@]}"} --show-bin-path)

stripped_size() {
    strip -o "$work/$1.stripped" "$bin/$1"
    wc -c < "$work/$1.stripped" | tr -d ' '
}

# The sum of the sizes of the sections loaded from the file: flag A (allocated) and not NOBITS
# (.bss and .tbss take no file bytes), i.e. text + data of `size`. The file grows and shrinks
# in page-alignment steps; this sum moves with every byte of code, metadata and tables.
# Run after stripped_size (reads the stripped copy; strip keeps every allocated section).
allocated_size() {
    readelf -S -W "$work/$1.stripped" | sed -n 's/^ *\[ *[0-9]*\] //p' | awk '
        function hex(s,   i, n) { n = 0; s = tolower(s)
            for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
            return n }
        $7 ~ /A/ && $2 != "NOBITS" { total += hex($5) }
        END { printf "%d\n", total }'
}

# Code and data: .text + .rodata + .data + .data.rel.ro of the stripped copy (size -A), the
# sections a Mach-O build has too (__text, __const, __data, ...); ELF's .eh_frame, .rela.dyn,
# .dynsym and .dynstr have no like-sized counterpart there.
code_size() {
    size -A "$work/$1.stripped" | awk '$1 == ".text" || $1 == ".rodata" || $1 == ".data" || $1 == ".data.rel.ro" { total += $2 }
        END { printf "%d\n", total }'
}

floor=$(stripped_size Floor)
seed=$(stripped_size Seed)
floor_alloc=$(allocated_size Floor)
floor_code=$(code_size Floor)
op_floor=$(stripped_size OperationFloor)
op_floor_alloc=$(allocated_size OperationFloor)
op_floor_code=$(code_size OperationFloor)
seed_code=$(code_size Seed)
kb() { awk -v b="$1" 'BEGIN { printf "%.0f", b / 1024 }'; }
signed_kb() { awk -v b="$1" 'BEGIN { k = b / 1024; printf "%+d", k < 0 ? -int(-k + 0.5) : int(k + 0.5) }'; }
signed_kb1() { awk -v b="$1" 'BEGIN { printf "%+.1f", b / 1024 }'; }
thousands() { sed ':a;s/\B[0-9]\{3\}\>/,&/;ta' <<< "$1"; }

# The rows: label, markdown label, target, budget name and what the budget counts (floor|seed);
# add_row fills sizes (stripped file bytes) and allocs (allocated section bytes) from the target.
labels=() md_labels=() sizes=() allocs=() codes=() budget_names=() budget_bases=()
add_row() {
    labels+=("$1"); md_labels+=("$2"); budget_names+=("$4"); budget_bases+=("$5")
    sizes+=("$(stripped_size "$3")"); allocs+=("$(allocated_size "$3")"); codes+=("$(code_size "$3")")
}
add_row "seed program, import EasyNetwork" "quick start, \`import EasyNetwork\` only" Seed seed floor
for i in "${!products[@]}"; do
    add_row "seed + ${products[$i]}" "quick start + \`${products[$i]}\`" "Product$i" "${products[$i]}" seed
done
add_row "seed + all products (testing kit aside)" "quick start + every product (testing kit aside)" All all floor
for name in "${!budget[@]}"; do
    found=0
    for known in "${budget_names[@]}"; do [[ "$known" == "$name" || "$known-code" == "$name" ]] && found=1; done
    ((found)) || echo "footprint.sh: warning: --budget $name: no such row (products: ${products[*]:-none})" >&2
done

# Fills status[i] and budget_text[i] (both budgets of a row: NAME on the stripped file,
# NAME-code on code and data); counts the rows over a budget.
over=0 status=() budget_text=()
for i in "${!labels[@]}"; do
    name=${budget_names[$i]} text="" verdict="" row_over=0
    base=$floor base_code=$floor_code
    [[ "${budget_bases[$i]}" == seed ]] && base=$seed base_code=$seed_code
    if [[ -n "${budget[$name]:-}" ]]; then
        text="<= ${budget[$name]} KB over ${budget_bases[$i]}"
        (( ${sizes[$i]} - base <= ${budget[$name]} * 1024 )) || row_over=1
    fi
    if [[ -n "${budget[$name-code]:-}" ]]; then
        text="${text:+$text, }code+data <= ${budget[$name-code]} KB"
        (( ${codes[$i]} - base_code <= ${budget[$name-code]} * 1024 )) || row_over=1
    fi
    if [[ -n "$text" ]]; then
        verdict=PASS
        ((row_over)) && verdict=OVER && over=$((over + 1))
    fi
    budget_text+=("$text") status+=("$verdict")
done

echo
echo "Stripped size, Linux $(uname -m), swift build -c release ${build_args[*]:-}"
echo "(bytes, KB, over floor, over seed: the stripped file, which the budgets judge; it moves in"
echo " page-alignment steps. alloc, over floor: the sum of the allocated sections with file contents,"
echo " all but .bss and .tbss (readelf -S flag A, not NOBITS; text + data of size); it moves with every change."
echo " code+data, over floor: .text + .rodata + .data + .data.rel.ro, what Apple platforms carry too)"
format='%-44s %10s %9s %12s %12s %10s %12s %10s %12s  %-42s %s\n'
printf "$format" "program" "bytes" "KB" "over floor" "over seed" "alloc" "over floor" "code+data" "over floor" "budget" "check"
printf "$format" "plain URLSession (the floor)" "$floor" "$(kb "$floor")" "" "" "$floor_alloc" "" "$floor_code" "" "" ""
printf "$format" "seed style by hand, no library" "$op_floor" "$(kb "$op_floor")" "$(signed_kb $((op_floor - floor))) KB" "" \
    "$op_floor_alloc" "$(signed_kb1 $((op_floor_alloc - floor_alloc))) KB" "$op_floor_code" "$(signed_kb1 $((op_floor_code - floor_code))) KB" "(information)" ""
for i in "${!labels[@]}"; do
    printf "$format" "${labels[$i]}" "${sizes[$i]}" "$(kb "${sizes[$i]}")" \
        "$(signed_kb $((${sizes[$i]} - floor))) KB" "$(signed_kb $((${sizes[$i]} - seed))) KB" \
        "${allocs[$i]}" "$(signed_kb1 $((${allocs[$i]} - floor_alloc))) KB" \
        "${codes[$i]}" "$(signed_kb1 $((${codes[$i]} - floor_code))) KB" \
        "${budget_text[$i]}" "${status[$i]}"
done
echo "The seed program over the seed style by hand (what the library itself adds):" \
    "$(signed_kb $((seed - op_floor))) KB stripped, $(signed_kb1 $((seed_code - op_floor_code))) KB of code and data"
if ((over)); then
    echo "$over row(s) over budget"
else
    echo "every row within its budget"
fi

# What each further endpoint adds: (11 endpoints - 1 endpoint) / 10, stripped and code and data.
endpoint_rows=()
per_endpoint() {
    local one eleven one_code eleven_code
    # One assignment per line: `set -e` stops at a failed substitution only when it is
    # the last of its command.
    one=$(stripped_size "${2}1")
    eleven=$(stripped_size "${2}11")
    one_code=$(code_size "${2}1")
    eleven_code=$(code_size "${2}11")
    endpoint_rows+=("$1"$'\t'"$(awk -v a="$one" -v b="$eleven" 'BEGIN { printf "%.1f", (b - a) / 10 / 1024 }')"$'\t'"$(awk -v a="$one_code" -v b="$eleven_code" 'BEGIN { printf "%.1f", (b - a) / 10 / 1024 }')")
}
per_endpoint "seed style: a request class, a mapper, a ServiceOperation subclass" Seed
per_endpoint "typed: an APIRequest with a Decodable response, awaited with send" Typed
per_endpoint "ad hoc: send(.post(path, json:), as: a Decodable type), awaited" Adhoc
echo
echo "Each further endpoint of an SDK (programs with 1 and 11 endpoints of a style, the difference / 10):"
printf '  %-68s %11s %12s\n' "style" "stripped" "code+data"
for row in "${endpoint_rows[@]}"; do
    IFS=$'\t' read -r style stripped code <<< "$row"
    printf '  %-68s %8s KB %9s KB\n' "$style" "$stripped" "$code"
done

if ((markdown)); then
    echo
    echo "| program (stripped, Linux $(uname -m), release) | bytes | adds over plain \`URLSession\` | adds over the quick start | allocated sections (over plain \`URLSession\`) | code and data (over plain \`URLSession\`) | budget | |"
    echo "|---|---:|---:|---:|---:|---:|---|---|"
    echo "| plain \`URLSession\` (the floor) | $(thousands "$floor") | | | $(thousands "$floor_alloc") | $(thousands "$floor_code") | | |"
    echo "| the seed's style by hand: a minimal asynchronous \`Operation\` and a subclass, no library | $(thousands "$op_floor") | $(signed_kb $((op_floor - floor))) KB | | $(thousands "$op_floor_alloc") ($(signed_kb1 $((op_floor_alloc - floor_alloc))) KB) | $(thousands "$op_floor_code") ($(signed_kb1 $((op_floor_code - floor_code))) KB) | information | |"
    for i in "${!labels[@]}"; do
        over_seed="$(signed_kb $((${sizes[$i]} - seed))) KB"
        [[ "${budget_names[$i]}" == seed ]] && over_seed=""
        budget_cell=${budget_text[$i]/<=/≤}
        alloc_cell="$(thousands "${allocs[$i]}") ($(signed_kb1 $((${allocs[$i]} - floor_alloc))) KB)"
        code_cell="$(thousands "${codes[$i]}") ($(signed_kb1 $((${codes[$i]} - floor_code))) KB)"
        echo "| ${md_labels[$i]} | $(thousands "${sizes[$i]}") | $(signed_kb $((${sizes[$i]} - floor))) KB | $over_seed | $alloc_cell | $code_cell | ${budget_cell//<=/≤} | ${status[$i]} |"
    done
fi

exit_status=0
if ((check && over)); then exit_status=3; fi
((top > 0)) || exit "$exit_status"

# Where the seed program's bytes go: section sizes, then symbols grouped by Swift type.
echo
echo "Sections of the stripped seed program, and over the floor (size -A):"
size -A "$work/Floor.stripped" | awk 'NF == 3 && $2 ~ /^[0-9]+$/ { print $1, $2 }' > "$work/floor.sections"
size -A "$work/Seed.stripped" | awk 'NF == 3 && $2 ~ /^[0-9]+$/ { print $1, $2 }' |
    awk 'NR == FNR { base[$1] = $2; next } { print $1, $2, $2 - base[$1] }' "$work/floor.sections" - |
    sort -k3 -n -r | awk '$3 >= 1024 { printf "  %-28s %8.0f KB %+8.0f KB\n", $1, $2 / 1024, $3 / 1024; shown += $3 }
        END { printf "  %-28s %20s\n", "(smaller sections)", sprintf("%+.0f KB", (total - shown) / 1024) }
        { total += $3 }'

# nm prints addresses and sizes in hex (mawk has no strtonum); demangle each name twice: in
# full (with the module names the grouping needs) and --simplified (to show).
nm -S "$bin/Seed" | awk '
    function hex(s,   i, n) { n = 0; s = tolower(s)
        for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
        return n }
    NF == 4 { print hex($1) "\t" hex($2) > "/dev/stderr"; print $4 }' 2> "$work/sizes.txt" > "$work/mangled.txt"
swift demangle < "$work/mangled.txt" > "$work/full.txt"
swift demangle --simplified < "$work/mangled.txt" | cut -c1-90 > "$work/simple.txt"

# A symbol belongs to the type (Module.Type, nested types folded in) whose code it is:
# "protocol witness for P.x in conformance M.T : P" -> M.T, "closure #1 (...) in M.T.f()" -> M.T,
# "type metadata accessor for M.T" -> M.T, "generic specialization <M.U> of M.T.f()" -> M.T, and
# "generic specialization <M.U> of Swift.Array.append()" -> M.U (stdlib code made for M.U).
# Each byte counts once. The linker merges identical functions and data into one copy with
# several names at one address (aliases): the address counts once, for the type all its names
# belong to, or for "(shared by several types)" when they belong to different types (then it is
# no one type's cost). A symbol that starts inside an earlier one ("type metadata for T" is
# an alias into "full type metadata for T") adds only its bytes past that one's end.
paste "$work/sizes.txt" "$work/full.txt" "$work/simple.txt" | sort -t $'\t' -k1,1n -k3,3 -s |
    awk -F '\t' '
    function system_module(m) {
        return m ~ /^(Swift|_Concurrency|_StringProcessing|Foundation[A-Za-z]*|CoreFoundation|Dispatch|Glibc|SwiftGlibc|__C)$/
    }
    # The first Module.Type in s that is not a generic parameter (A.Element) or a nested name;
    # with nonsystem set, the first that is not Swift'\''s or Foundation'\''s.
    function first_type(s, nonsystem,   t, m, before, last) {
        last = ""
        while (match(s, /[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*/)) {
            t = substr(s, RSTART, RLENGTH)
            before = RSTART > 1 ? substr(s, RSTART - 1, 1) : last
            s = substr(s, RSTART + RLENGTH); last = substr(t, length(t), 1)
            m = substr(t, 1, index(t, ".") - 1)
            if (before ~ /[.A-Za-z0-9_]/ || m ~ /^([A-Z][0-9]*|Self)$/) continue
            if (nonsystem && system_module(m)) continue
            return t
        }
        return ""
    }
    # What follows the last " in ", " of " or " for " outside brackets: the entity itself.
    function tail(n,   i, c, d, cut) {
        d = 0; cut = 1
        for (i = 1; i <= length(n); i++) {
            c = substr(n, i, 1)
            if (c == "(" || c == "[" || c == "<") d++
            else if (c == ")" || c == "]" || (c == ">" && substr(n, i - 1, 1) != "-")) d--
            else if (d == 0 && c == " ") {
                if (substr(n, i, 4) == " in " || substr(n, i, 4) == " of ") cut = i + 4
                else if (substr(n, i, 5) == " for ") cut = i + 5
            }
        }
        return substr(n, cut)
    }
    # A specialization for a closure names the closure by its mangled name: $s11EasyNetwork5Cache...
    function propagated(n,   s, len, m) {
        if (!match(n, /Closure Propagated : \$s[0-9]+[A-Za-z_]/)) return ""
        s = substr(n, RSTART + 23)                      # just past "$s"
        match(s, /^[0-9]+/); len = substr(s, 1, RLENGTH) + 0; m = substr(s, RLENGTH + 1, len); s = substr(s, RLENGTH + len + 1)
        if (system_module(m) || !match(s, /^[0-9]+/)) return ""
        len = substr(s, 1, RLENGTH) + 0
        return m "." substr(s, RLENGTH + 1, len)
    }
    function owner(n,   o, x) {
        if (n ~ /reabstraction thunk/) return "(reabstraction thunks)"
        if ((o = propagated(n)) != "") return o
        if (match(n, /conformance /) && (o = first_type(substr(n, RSTART + RLENGTH), 0)) != "") return o
        o = first_type(tail(n), 0)
        if (o != "" && !system_module(substr(o, 1, index(o, ".") - 1))) return o
        if ((x = first_type(n, 1)) != "") return x
        if (o != "") return o
        if ((x = first_type(n, 0)) != "") return x
        sub(/[ .(].*/, "", n); sub(/[0-9_]+$/, "", n)
        return "(no type: " n ")"
    }
    function module_of(o) { return o ~ /^\(/ ? "" : substr(o, 1, index(o, ".") - 1) }
    # One address: the names at it (n of them, in the sort order above) and their largest size.
    function flush(   add, o, m, i, shown) {
        if (n == 0) return
        add = at + size - (at > end ? at : end)
        if (add < 0) add = 0
        if (at + size > end) end = at + size
        o = owners[1]; m = module_of(o)
        for (i = 2; i <= n; i++) {
            if (owners[i] != o) o = "(shared by several types)"
            if (module_of(owners[i]) != m) m = ""
        }
        if (m == "") m = (o ~ /^\(shared/) ? o : "(no type)"
        shown = n > 1 ? names[1] " (+" n - 1 " aliases)" : names[1]
        bytes[o] += add; count[o]++; module[m] += add; total += add; addresses++
        if (n > 1) { aliased++; alias_bytes += sum - size }
        if (add < size) inside += size - add
        if (add > biggest[o] || example[o] == "") { biggest[o] = add; example[o] = shown }
        n = 0; size = 0; sum = 0
    }
    $1 != at { flush(); at = $1 }
    {
        n++; owners[n] = owner($3); names[n] = $4; if ($2 > size) size = $2
        sum += $2; named += $2; symbols++
    }
    END {
        flush()
        for (o in bytes) printf "type\t%d\t%d\t%s\t%s\n", bytes[o], count[o], o, example[o]
        for (m in module) printf "module\t%d\t%s\n", module[m], m
        printf "total\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n", total, named, symbols, addresses, aliased, alias_bytes, inside
    }' > "$work/groups.tsv"

echo
totals=$(awk -F '\t' '$1 == "total"' "$work/groups.tsv")
echo "Symbol bytes of the unstripped seed program by module (nm -S, each byte once; metadata sections are not symbols):"
awk -F '\t' '$1 == "module" { print $2 "\t" $3 }' "$work/groups.tsv" | sort -n -r |
    awk -F '\t' -v totals="$totals" '
        BEGIN { split(totals, t, "\t") }
        $1 >= 1024 { printf "  %-36s %7.0f KB %5.1f %%\n", $2, $1 / 1024, 100 * $1 / t[2] }
        END {
            printf "  %-36s %7.1f KB  (%d bytes: %d symbols at %d addresses)\n", "all symbols, each byte once", t[2] / 1024, t[2], t[4], t[5]
            printf "  %-36s %7.1f KB  (%d bytes: %d more for aliases at %d shared addresses, %d inside other symbols)\n",
                "nm sizes summed per name", t[3] / 1024, t[3], t[7], t[6], t[8]
        }'
echo
echo "Top $top types of the seed program (symbol bytes, each byte once; addresses; the largest, simplified):"
awk -F '\t' '$1 == "type"' "$work/groups.tsv" | sort -t $'\t' -k2 -n -r |
    awk -F '\t' -v top="$top" -v totals="$totals" '
        BEGIN { split(totals, t, "\t") }
        NR <= top { printf "  %6.1f KB %5d  %-36s %s\n", $2 / 1024, $3, $4, $5; shown += $2; rows++ }
        { all += $2 }
        END {
            printf "  %6.1f KB in these %d types; %.1f KB in all %d groups = all symbols, each byte once (%.1f KB);\n",
                shown / 1024, rows, all / 1024, NR, t[2] / 1024
            printf "  %6s    nm sizes summed per name: %.1f KB\n", "", t[3] / 1024
        }'

exit "$exit_status"
