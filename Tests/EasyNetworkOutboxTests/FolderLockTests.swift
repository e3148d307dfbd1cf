import EasyNetwork
import EasyNetworkTesting
@testable import EasyNetworkOutbox
import Foundation
import XCTest

/// Two outboxes on one folder, in one process or in two, never deliver the same entry at
/// once: the folder's `flock` lock lets one deliver while the other only stores.
final class FolderLockTests: OutboxTestCase {
    func testTwoOutboxesOnOneFolderInOneProcessDeliverEachEntryOnce() throws {
        serveEvents { _ in .delayed(0.002, .status(200)) }
        let first = makeOutbox(), second = makeOutbox()
        first.resume()
        second.resume()
        for n in 0..<60 {
            try (n % 2 == 0 ? first : second).send(EventRequest(n: n))
        }
        waitUntil("drained") { first.pendingCount == 0 && second.pendingCount == 0 && log.events.count >= 60 }
        usleep(200_000)
        XCTAssertEqual(log.numbers.sorted(), Array(0..<60), "every entry once, none twice")
        XCTAssertEqual(server.peakConcurrentRequests, 1, "one outbox delivered at a time (width 1)")
        XCTAssertEqual(files("pending"), [])
    }

    func testAnOutboxInAnotherProcessOnTheSameFolderNeverDeliversTheSameEntry() throws {
        serveEvents { _ in .delayed(0.001, .status(200)) }
        let outbox = makeOutbox()
        outbox.resume()
        let (child, _) = try startChild(["send", folder.path, server.baseURL.absoluteString, "1000", "80"])
        for n in 0..<80 {
            try outbox.send(EventRequest(n: n))
            usleep(1_000)
        }
        let deadline = Date().addingTimeInterval(60)
        while child.isRunning, Date() < deadline { usleep(5_000) }
        XCTAssertFalse(child.isRunning)
        child.waitUntilExit()
        XCTAssertEqual(child.terminationStatus, 0)
        waitUntil("drained") { outbox.pendingCount == 0 }
        usleep(200_000)
        XCTAssertEqual(log.numbers.sorted(), Array(0..<80) + Array(1000..<1080), "every entry once, none twice")
        XCTAssertEqual(server.peakConcurrentRequests, 1, "one process delivered at a time (width 1)")
        XCTAssertEqual(files("pending"), [])
    }

    func testTheLockIsExclusiveBetweenTwoHoldersAndFreedOnRelease() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let one = makeOutbox(), two = makeOutbox()  // paused: only the calls below take the lock
        XCTAssertTrue(try one.tryAcquireFolderLock())
        XCTAssertFalse(try two.tryAcquireFolderLock())
        one.releaseFolderLock()
        XCTAssertTrue(try two.tryAcquireFolderLock())
        XCTAssertFalse(try one.tryAcquireFolderLock())
    }
}
