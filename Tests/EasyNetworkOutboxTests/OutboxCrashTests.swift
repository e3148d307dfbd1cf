import EasyNetwork
import EasyNetworkTesting
@testable import EasyNetworkOutbox
import Foundation
import XCTest

/// Issue 23, item 8: a process that accepts and delivers entries, killed with SIGKILL at
/// random moments (while writing an entry, while sending, after the server answered and
/// before the entry was removed), loses no accepted entry, sends nothing it was not asked
/// to, and corrupts nothing.
final class OutboxCrashTests: OutboxTestCase {
    func testKilledAtRandomMomentsItLosesNoAcceptedEntryAndSendsNothingElse() throws {
        // The server answers most at once, some late (a kill may land while it waits, or
        // after it answered), some with 503 and Retry-After: 0 (a retry, same key).
        serveEvents { _ in
            switch Int.random(in: 0..<20) {
            case 0: return .status(503, headers: ["Retry-After": "0"])
            case 1, 2: return .delayed(Double.random(in: 0.002...0.02), .status(200))
            default: return .status(200)
            }
        }
        let logFile = folder.path + ".log"
        defer { try? FileManager.default.removeItem(atPath: logFile) }
        let url = server.baseURL.absoluteString
        let rounds = 110
        for round in 0..<rounds {
            // Every fifth child only delivers what the others left: its kill lands mid-delivery.
            let arguments = round % 5 == 4 ? ["drain", folder.path, url] : ["send-loop", folder.path, url, logFile, String(round * 100_000)]
            let (child, output) = try startChild(arguments)
            // From the moment its outbox works (a process starts slower under ThreadSanitizer).
            _ = output.fileHandleForReading.availableData
            usleep(UInt32.random(in: 0...60_000))
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
        }
        // A last process delivers whatever is left, and ends by itself.
        let last = try runChild(["drain", folder.path, url], timeout: 120)
        XCTAssertEqual(last.status, 0)

        var tried = Set<Int>(), accepted = Set<Int>()
        for line in try String(contentsOfFile: logFile, encoding: .utf8).split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let n = Int(parts[1]) else { continue }
            if parts[0] == "T" { tried.insert(n) } else { accepted.insert(n) }
        }
        let events = log.events
        var keysByNumber: [Int: Set<String>] = [:], numbersByKey: [String: Set<Int>] = [:]
        for event in events {
            XCTAssertNotNil(event.key, "every delivery carries its idempotency key")
            guard let key = event.key else { continue }
            keysByNumber[event.n, default: []].insert(key)
            numbersByKey[key, default: []].insert(event.n)
            XCTAssertNil(event.request.header("Authorization"), "the child's credential was never stored")
        }
        let arrived = Set(keysByNumber.keys)
        XCTAssertGreaterThan(accepted.count, 50, "the children accepted too few entries to prove anything")
        XCTAssertEqual(accepted.subtracting(arrived), [], "accepted entries that never arrived")
        XCTAssertEqual(arrived.subtracting(tried), [], "arrivals nobody sent")
        XCTAssertEqual(keysByNumber.values.filter { $0.count != 1 }.count, 0, "an entry arrived with two keys")
        XCTAssertEqual(numbersByKey.values.filter { $0.count != 1 }.count, 0, "a key was used by two entries")
        XCTAssertEqual(files("pending"), [], "entries left behind")
        XCTAssertEqual(files("aside"), [], "a kill left a torn entry file under its final name")
        XCTAssertEqual(files("tmp"), [], "temporary files of killed processes were not removed")
        XCTAssertEqual(files("dead"), [])
        let duplicates = events.count - arrived.count
        print("OutboxCrashTests: \(rounds) kills, \(tried.count) sends tried, \(accepted.count) accepted, \(arrived.count) arrived, \(arrived.count - accepted.count) arrived without their send returning, \(duplicates) arrivals repeated (same key)")
    }
}
