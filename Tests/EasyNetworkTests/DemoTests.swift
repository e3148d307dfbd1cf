import EasyNetworkTesting
import Foundation
import XCTest

/// The demo (`Examples/EasyNetworkDemo`, run by `.ci/run`): its `--help` names every route
/// its flow calls, so a server given to `--base-url` can offer them all. Read from its
/// sources: an executable target cannot be imported by a test.
final class DemoTests: XCTestCase {
    private let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Examples/EasyNetworkDemo")

    func testHelpListsEveryRouteTheFlowCallsAndTheBackendServes() throws {
        let main = try String(contentsOf: folder.appendingPathComponent("EasyNetworkDemo.swift"), encoding: .utf8)
        let start = try XCTUnwrap(main.range(of: "static let routes = \"\"\""))
        let end = try XCTUnwrap(main[start.upperBound...].range(of: "\"\"\""))
        let help = String(main[start.upperBound..<end.lowerBound])   // the routes text
        var paths: Set<String> = []
        for file in ["DemoBackend.swift", "DemoAPI.swift", "DemoSteps.swift"] {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            // "/sign_in", "/v4/thumb/", "/large/\(bytes)": every string literal that is a path.
            for piece in text.components(separatedBy: "\"").dropFirst().enumerated() where piece.offset.isMultiple(of: 2) {
                let literal = piece.element
                guard literal.hasPrefix("/"), literal.count > 1, !literal.contains(" ") else { continue }
                paths.insert(String(literal.prefix { $0 != "\\" }))
            }
        }
        XCTAssertGreaterThanOrEqual(paths.count, 16, "paths found: \(paths.sorted())")
        for path in paths {
            XCTAssertTrue(help.contains(" " + path), "--help does not list \(path)")
        }
    }

    /// Against a server that offers none of the flow's routes, the demo says which steps
    /// failed, labels a 404 as an HTTP status (not a business error), and exits 1 (it exited
    /// 0 whatever happened). Runs the demo executable that `swift test` builds next to the
    /// test bundle.
    func testAFailedStepLabelsItsStatusAndMakesTheDemoExitOne() throws {
        #if os(Linux)
        let products = try XCTUnwrap(Bundle.main.executableURL, "no test executable").deletingLastPathComponent()
        #else
        let products = Bundle(for: DemoTests.self).bundleURL.deletingLastPathComponent()  // the .xctest bundle's folder
        #endif
        let demo = products.appendingPathComponent("EasyNetworkDemo")
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: demo.path), "no demo at \(demo.path): `swift test` builds it")
        let server = try LoopbackServer()
        defer { server.stop() }
        let process = Process()
        process.executableURL = demo
        process.arguments = ["--base-url", server.baseURL.absoluteString]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let killer = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: killer)
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        killer.cancel()
        XCTAssertEqual(process.terminationReason, .exit, text)
        XCTAssertEqual(process.terminationStatus, 1, text)
        XCTAssertTrue(text.contains("HTTP status 404"), text)
        XCTAssertFalse(text.contains("business error"), text)
        XCTAssertTrue(text.contains("did not end as expected"), text)
    }
}
