#!/usr/bin/env bash
# Client instructions per request, counted by callgrind: raw URLSession, the floor (raw
# URLSession inside a minimal asynchronous Operation on an OperationQueue), the same floor
# around a delegate-driven task (floor-delegate), and EasyNetwork, seed style (easynetwork:
# a ServiceOperation subclass) and async/await (async: `try await queue.send`).
#
#   Benchmarks/instructions.sh [--paths raw,floor,floor-delegate,easynetwork,async]
#                              [--n1 200] [--n2 1200] [--width 1] [--repeats 1]
#                              [--no-build] [--keep]
#
# Each path runs twice under `valgrind --tool=callgrind`, once with N1 and once with N2
# requests (no warm-up), and the script prints the marginal cost per request,
# (instructions(N2) - instructions(N1)) / (N2 - N1), so start-up, connection set-up and
# exit cancel out, with each path's ratio to raw and to both floors. Only the client is counted: the server
# is the same benchmark binary started with --serve-bench in a separate process that is
# not under valgrind, and the client reaches it with --server. The client serves its main
# queue with the main RunLoop (--runloop): valgrind 3.19 crashes in dispatchMain().
# With --repeats R every count is taken R times (paths interleaved) and the median used.
# Paths are those of `EasyNetworkBenchmarks --profile` (ProfilePaths.swift).
# Counts are user-mode instructions, not time (system calls and context switches are not
# in them): other processes barely move them, thread interleaving does by about 1 % (Swift
# metadata-cache probes, malloc, timer heap), so use --repeats 3 near a target.
# VALGRIND_OPTS passes options to valgrind. Takes about 6 minutes on a loaded 2-core
# machine with the defaults (4,200 requests under valgrind), --repeats 3 about 6-15, plus
# the release build. --keep keeps the callgrind files (for callgrind_annotate).
set -euo pipefail

paths=raw,floor,floor-delegate,easynetwork,async
n1=200
n2=1200
width=1
repeats=1
build=1
keep=0
while (($#)); do
    case "$1" in
        --paths) paths=$2; shift ;;
        --n1) n1=$2; shift ;;
        --n2) n2=$2; shift ;;
        --width) width=$2; shift ;;
        --repeats) repeats=$2; shift ;;
        --no-build) build=0 ;;
        --keep) keep=1 ;;
        -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "instructions.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
    shift
done
for number in "$n1" "$n2" "$width" "$repeats"; do
    [[ "$number" =~ ^[0-9]+$ ]] || { echo "instructions.sh: '$number' is not a number" >&2; exit 2; }
done
((n2 > n1)) || { echo "instructions.sh: --n2 must be larger than --n1" >&2; exit 2; }
for tool in swift valgrind; do
    command -v "$tool" >/dev/null || { echo "instructions.sh: '$tool' not found on PATH" >&2; exit 1; }
done

began=$SECONDS
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/instructions.XXXXXX")
server_pid=
cleanup() {
    [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null || true
    if ((keep)); then echo "callgrind files kept in $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

if ((build)); then
    echo "building the benchmark (release)..." >&2
    swift build -c release --package-path "$here" > "$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
fi
bin="$(swift build -c release --package-path "$here" --show-bin-path)/EasyNetworkBenchmarks"
[[ -x "$bin" ]] || { echo "instructions.sh: $bin not built (drop --no-build)" >&2; exit 1; }

# The server: its own process, never counted.
"$bin" --serve-bench > "$work/port" 2> "$work/server.log" &
server_pid=$!
for _ in $(seq 100); do
    [[ -s "$work/port" ]] && break
    sleep 0.1
done
port=$(head -n 1 "$work/port")
[[ "$port" =~ ^[0-9]+$ ]] || { echo "instructions.sh: the server did not start" >&2; cat "$work/server.log" >&2; exit 1; }

# $1 path, $2 requests, $3 repeat: prints the client's instruction count.
count() {
    local out="$work/callgrind.$1.$2.$3"
    if ! (cd "$work" && valgrind --tool=callgrind --callgrind-out-file="$out" \
            "$bin" --profile "$1" "$2" "$width" 1 --warmup 0 --server "http://127.0.0.1:$port" --runloop \
            > "$out.stdout" 2> "$out.stderr"); then
        echo "instructions.sh: the client failed under valgrind ($1, $2 requests):" >&2
        tail -n 20 "$out.stderr" >&2
        exit 1
    fi
    if grep -q "failed requests" "$out.stderr"; then
        echo "instructions.sh: $(grep "failed requests" "$out.stderr") ($1, $2 requests)" >&2
        exit 1
    fi
    awk '$1 == "summary:" || $1 == "totals:" { print $2; exit }' "$out"
}

IFS=, read -r -a names <<< "$paths"
echo "callgrind, client only, $width at a time, N1=$n1 and N2=$n2 requests per path, $repeats repeat(s); load average $(cut -d ' ' -f 1 /proc/loadavg 2>/dev/null || echo unknown)" >&2
declare -A marginal
for repeat in $(seq "$repeats"); do
    for name in "${names[@]}"; do
        small=$(count "$name" "$n1" "$repeat")
        large=$(count "$name" "$n2" "$repeat")
        per=$(( (large - small) / (n2 - n1) ))
        marginal[$name]+="$per "
        printf '  %-12s repeat %d: %15s instructions at N1, %15s at N2, %9s per request\n' \
            "$name" "$repeat" "$small" "$large" "$per" >&2
    done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
raw=
for name in "${names[@]}"; do
    if [[ "$name" == raw ]]; then raw=$(median <<< "${marginal[$name]}"); fi
done

echo
echo "Client instructions per request (callgrind, marginal between $n1 and $n2 requests, width $width)"
floor=
delegate_floor=
for name in "${names[@]}"; do
    if [[ "$name" == floor ]]; then floor=$(median <<< "${marginal[$name]}"); fi
    if [[ "$name" == floor-delegate ]]; then delegate_floor=$(median <<< "${marginal[$name]}"); fi
done
ratio() { if [[ -n "$2" ]]; then awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3fx", a / b }'; else echo "-"; fi; }
printf '%-15s %14s %10s %10s %16s\n' "path" "instr/request" "vs raw" "vs floor" "vs floor-delegate"
for name in "${names[@]}"; do
    per=$(median <<< "${marginal[$name]}")
    printf '%-15s %14s %10s %10s %16s\n' "$name" "$per" "$(ratio "$per" "$raw")" "$(ratio "$per" "$floor")" "$(ratio "$per" "$delegate_floor")"
done
echo "issue 21 targets: easynetwork <= 1.030x floor, async <= 1.050x floor"
if [[ -n "$raw" && -n "$floor" ]]; then
    echo "(the floor, the least any Operation-based client runs, is at $(ratio "$floor" "$raw") raw here)"
fi
echo "took $((SECONDS - began)) s" >&2
