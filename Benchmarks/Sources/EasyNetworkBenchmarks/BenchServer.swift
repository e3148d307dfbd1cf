import EasyNetworkTesting
import Foundation

/// The benchmark's server side: the `/bench` route, in this process or in a child of its own.
enum BenchServer {
    /// The body every benchmark request receives: a small JSON object.
    static let body = #"{"id": 42, "name": "benchmark", "tags": ["a", "b", "c"], "active": true}"#

    /// A loopback server with the `/bench` route.
    static func start() throws -> LoopbackServer {
        let server = try LoopbackServer()
        server.route("GET", "/bench") { _ in .json(body) }
        return server
    }

    /// `--serve-bench`: runs as a server process for `--profile ... --server URL` (so that a
    /// client measured alone, e.g. under callgrind, does not count the server's work). Prints
    /// the port on one line, then serves until it is killed or its standard input closes when
    /// `--until-eof` is given. Forgets the requests it records every second.
    static func serve() -> Never {
        guard let server = try? start() else {
            FileHandle.standardError.write(Data("cannot start the server\n".utf8))
            exit(1)
        }
        FileHandle.standardOutput.write(Data("\(server.port)\n".utf8))
        if CommandLine.arguments.contains("--until-eof") {
            Thread.detachNewThread {
                _ = FileHandle.standardInput.readDataToEndOfFile()
                server.stop()
                exit(0)
            }
        }
        while true {
            Thread.sleep(forTimeInterval: 1)
            server.resetRecords()
        }
    }

    /// A server in a child process (this executable with `--serve-bench --until-eof`), so that
    /// this process's CPU time and memory are the client's alone. It stops when `stop` is called
    /// (its standard input closes) or this process exits.
    final class Child: Sendable {
        let baseURL: URL
        private let process: Process
        private let input: Pipe

        init() throws {
            process = Process()
            process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
            process.arguments = ["--serve-bench", "--until-eof"]
            let output = Pipe()
            input = Pipe()
            process.standardOutput = output
            process.standardInput = input
            try process.run()
            var line = Data()
            while !line.contains(UInt8(ascii: "\n")) {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                line.append(chunk)
            }
            guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)),
                  let url = URL(string: "http://127.0.0.1:\(port)")
            else {
                process.terminate()
                throw CocoaError(.fileReadCorruptFile)
            }
            baseURL = url
        }

        func stop() {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }
}
