import Foundation

/// Whether the main queue is served by the main `RunLoop` rather than `dispatchMain()`:
/// `--runloop` on the command line or `EASYNETWORK_BENCH_RUNLOOP=1` in the environment.
///
/// Valgrind 3.19 (used by `instructions.sh`) crashes in `dispatchMain()`, which parks the main
/// thread with `pthread_exit`; the main run loop drains the main queue as well (Linux and Apple
/// platforms), so the measured code is the same either way.
let usesRunLoop = CommandLine.arguments.contains("--runloop")
    || ProcessInfo.processInfo.environment["EASYNETWORK_BENCH_RUNLOOP"] == "1"

/// Serves the main queue until the process exits (the work runs on another thread and ends with `exit`).
func runMainLoop() -> Never {
    if usesRunLoop {
        // `run(mode:before:)` returns when a source fires or the run loop has nothing to wait on;
        // the main queue keeps it waiting, and the timer is there in case a platform disagrees.
        let keepAlive = Timer(timeInterval: 3600, repeats: true) { _ in }
        RunLoop.main.add(keepAlive, forMode: .default)
        while true {
            _ = RunLoop.main.run(mode: .default, before: .distantFuture)
        }
    }
    dispatchMain()
}
