import Foundation
import XCTest

/// Runs part of a test in a child process, so that an input which stops the process (a
/// trap, a stack overflow, a crash inside Foundation) or hangs fails that one test with
/// what happened, instead of ending the whole suite.
///
/// The child is the test binary itself, started again with only the calling test selected
/// and `EASYNETWORK_CHILD_TEST` naming it. In the child, ``run(_:timeout:function:body:)``
/// runs `body`, writes its report and exits; in the parent it starts that child, waits at
/// most `timeout` seconds (killing it after) and returns how it ended. Nothing to install:
/// it works with a plain `swift test`, `--filter`, `--parallel` and `--sanitize=thread`.
///
/// ```swift
/// func testDeepParamsFailTyped() throws {
///     let outcome = try ChildProcess.run(self) {
///         String(describing: send(request))      // the part that might crash
///     }
///     XCTAssertFalse(outcome.crashed, outcome.output)
///     XCTAssertEqual(outcome.report, "...")
/// }
/// ```
///
/// Linux only for now (the child is started the way `swift test` starts the binary there);
/// elsewhere the test is skipped.
public enum ChildProcess {
    /// How the child ended.
    public struct Outcome: Sendable {
        /// The exit status, when the child exited.
        public let status: Int32?
        /// The signal that stopped the child (4 for a Swift trap on x86-64, 11 for a stack
        /// overflow), when one did.
        public let signal: Int32?
        /// Whether the child was killed for running past its timeout.
        public let timedOut: Bool
        /// Everything the child wrote to standard output and standard error.
        public let output: String
        /// What `body` returned, when it returned.
        public let report: String?

        /// Whether the child stopped without reporting (a signal, a crash, a timeout), or
        /// exited with a status other than 0 after it (a sanitizer's report does that).
        public var crashed: Bool { report == nil || status != 0 }

        /// How the child ended, for a failure message: the signal or status, the lines
        /// that say why (fatal errors, crashes) and the last lines of its output.
        public var summary: String {
            let ending = timedOut ? "killed after its timeout" : signal.map { "stopped by signal \($0)" } ?? "exited with \(status ?? 0)"
            let lines = output.split(separator: "\n")
            let why = lines.filter { $0.contains("Fatal error") || $0.contains("fatal error") || $0.contains("Crash") || $0.contains("ERROR:") }
            return ending + "\n" + why.prefix(10).joined(separator: "\n") + "\n…\n" + lines.suffix(25).joined(separator: "\n")
        }
    }

    /// The environment variable that makes a test binary the child for one test.
    public static let variable = "EASYNETWORK_CHILD_TEST"

    private static let reportMarker = "EASYNETWORK-CHILD-REPORT:"

    /// Whether this process is a child started for some test.
    public static var isChild: Bool {
        ProcessInfo.processInfo.environment[variable] != nil
    }

    /// In the child: runs `body`, reports its result and exits (never returns). In the
    /// parent: runs the calling test again in a child process and returns how it ended.
    /// - Throws: `XCTSkip` where child processes are not supported; an error if the child
    ///   cannot be started.
    public static func run(
        _ test: XCTestCase,
        timeout: TimeInterval = 60,
        function: String = #function,
        body: () throws -> String
    ) throws -> Outcome {
        let name = String(reflecting: type(of: test)) + "/" + function.replacingOccurrences(of: "()", with: "")
        if ProcessInfo.processInfo.environment[variable] == name {
            let report: String
            do {
                report = try body()
            } catch {
                report = "threw: \(error)"
            }
            let line = reportMarker + report.replacingOccurrences(of: "\n", with: "\\n") + "\n"
            FileHandle.standardOutput.write(Data(line.utf8))
            exit(0)
        }
        #if os(Linux)
        return try start(name, timeout: timeout)
        #else
        throw XCTSkip("ChildProcess runs child processes on Linux only")
        #endif
    }

    /// Starts the test binary for `name` alone and waits for it.
    private static func start(_ name: String, timeout: TimeInterval) throws -> Outcome {
        guard let executable = Bundle.main.executableURL else {
            throw NSError(domain: "ChildProcess", code: 1, userInfo: [NSLocalizedDescriptionKey: "no executable path"])
        }
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let output = try FileHandle(forWritingTo: log)
        defer { try? output.close() }

        let process = Process()
        process.executableURL = executable
        process.arguments = [name]
        var environment = ProcessInfo.processInfo.environment
        environment[variable] = name
        // A crash's report, not a minute of symbolicating it (unless asked for).
        if environment["SWIFT_BACKTRACE"] == nil {
            environment["SWIFT_BACKTRACE"] = "enable=no"
        }
        process.environment = environment
        process.standardOutput = output
        process.standardError = output
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        try process.run()

        var timedOut = false
        if ended.wait(timeout: .now() + timeout) == .timedOut {
            timedOut = true
            kill(process.processIdentifier, SIGKILL)
            ended.wait()
        }
        let text = String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self)
        // EASYNETWORK_CHILD_LOG=DIR keeps every child's whole output there.
        if let directory = ProcessInfo.processInfo.environment["EASYNETWORK_CHILD_LOG"] {
            let copy = URL(fileURLWithPath: directory).appendingPathComponent(name.replacingOccurrences(of: "/", with: "-") + ".log")
            try? Data(text.utf8).write(to: copy)
        }
        var report: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) where line.hasPrefix(reportMarker) {
            report = String(line.dropFirst(reportMarker.count)).replacingOccurrences(of: "\\n", with: "\n")
        }
        let bySignal = process.terminationReason == .uncaughtSignal
        return Outcome(
            status: bySignal ? nil : process.terminationStatus,
            signal: bySignal ? process.terminationStatus : nil,
            timedOut: timedOut,
            output: text,
            report: report
        )
    }
}
