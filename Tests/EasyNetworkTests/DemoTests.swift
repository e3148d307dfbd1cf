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
}
