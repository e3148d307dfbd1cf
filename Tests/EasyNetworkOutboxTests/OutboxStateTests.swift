import EasyNetwork
import EasyNetworkTesting
@testable import EasyNetworkOutbox
import Foundation
import XCTest

/// Limits: a full outbox refuses with a typed error, or drops the oldest when the SDK
/// chose so (reported); an entry larger than the byte limit is refused.
final class OutboxStateTests: OutboxTestCase {
    func testAFullOutboxRefusesWithATypedErrorAndKeepsEverything() throws {
        let outbox = makeOutbox(options: fastOptions(maxEntries: 3))
        let kept = try (1...3).map { try outbox.send(EventRequest(n: $0)).id }
        XCTAssertThrowsError(try outbox.send(EventRequest(n: 4))) { error in
            XCTAssertEqual((error as? OutboxError)?.code, .full)
        }
        XCTAssertEqual(outbox.pendingEntries().map(\.id), kept)
        // A relaunch counts what is on disk.
        XCTAssertThrowsError(try makeOutbox(options: fastOptions(maxEntries: 3)).send(EventRequest(n: 5)))
    }

    func testTheByteLimitCountsDeadLettersAndRefusesAnEntryTooLargeAlone() throws {
        serveEvents { _ in .status(400) }
        let size = try makeOutbox().send(EventRequest(n: 0)).body.count
        try FileManager.default.removeItem(at: folder)
        let outbox = makeOutbox(options: fastOptions(maxBytes: 1_000))
        let letters = Collector<OutboxDeadLetter>()
        outbox.onDeadLetter = { letters.append($0) }
        XCTAssertThrowsError(try outbox.send(EventRequest(n: 1, extraHeaders: ["X-Big": String(repeating: "b", count: 2_000)]))) { error in
            XCTAssertEqual((error as? OutboxError)?.code, .tooLarge)
        }
        var accepted = 0
        while (try? outbox.send(EventRequest(n: accepted))) != nil { accepted += 1 }
        XCTAssertGreaterThan(accepted, 2)
        XCTAssertGreaterThan(size, 0)
        outbox.resume()
        waitUntil("all dead") { letters.count == accepted }
        XCTAssertThrowsError(try outbox.send(EventRequest(n: 99)), "dead letters still take room") { error in
            XCTAssertEqual((error as? OutboxError)?.code, .full)
        }
        outbox.removeAllDeadLetters()
        XCTAssertNoThrow(try outbox.send(EventRequest(n: 100)))
    }

    func testDropOldestMakesRoomAndReportsEachDrop() throws {
        let outbox = makeOutbox(options: fastOptions(maxEntries: 3, whenFull: .dropOldest))
        let problems = Collector<OutboxProblem>()
        outbox.onProblem = { problems.append($0) }
        let ids = try (1...5).map { try outbox.send(EventRequest(n: $0)).id }
        XCTAssertEqual(outbox.pendingEntries().map(\.id), Array(ids.suffix(3)))
        waitUntil("two drops reported") { problems.count == 2 }
        XCTAssertEqual(problems.values.map(\.kind), [.dropped, .dropped])
        XCTAssertEqual(problems.values.map(\.entryID), Array(ids.prefix(2)))
    }

    func testNamesSortInTheOrderTheyWereMade() {
        let state = makeOutbox()  // its state only: nothing is stored or sent
        let names = (0..<1_000).map { _ in state.newName() }
        XCTAssertEqual(names, names.sorted())
        XCTAssertEqual(Set(names).count, names.count)
        XCTAssertEqual(names.map(\.count), Array(repeating: 29, count: names.count))
    }

    func testWaitingEntriesStaySortedAcrossTakesAndPutBacks() {
        let state = makeOutbox()  // its state only: nothing is stored or sent
        for name in ["b", "d", "a", "c"] {
            state.reserve(1)
            state.commit(name, size: 1)
        }
        XCTAssertEqual(state.takeNext(), "a")
        XCTAssertEqual(state.takeNext(), "b")
        state.putBack("b")
        state.putBack("a")
        XCTAssertEqual([state.takeNext(), state.takeNext(), state.takeNext(), state.takeNext(), state.takeNext()], ["a", "b", "c", "d", nil])
        XCTAssertEqual(state.inFlight, ["a", "b", "c", "d"])
        state.forget("c", size: 1)
        XCTAssertEqual(state.queuedCount, 3)
        XCTAssertEqual(state.counts.bytes, 3)
    }
}
