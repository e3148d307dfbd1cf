import EasyNetwork
import EasyNetworkTesting
@testable import EasyNetworkOutbox
import Foundation
import XCTest

/// The folder: torn or damaged files are set aside and reported and block nothing;
/// temporary files of dead processes go; a folder that cannot be written refuses `send`
/// with a typed error and loses nothing.
final class EntryFolderTests: OutboxTestCase {
    func testCorruptFilesAreSetAsideReportedAndTheOthersDelivered() throws {
        serveEvents()
        let writer = makeOutbox()
        let entries = try (1...4).map { try writer.send(EventRequest(n: $0)) }
        let pending = folder.appendingPathComponent("pending")
        // A torn file (cut short), a changed byte, a file of garbage under an entry's name.
        let torn = pending.appendingPathComponent(entries[1].id + ".entry")
        try Data(try Data(contentsOf: torn).prefix(40)).write(to: torn)
        let flipped = pending.appendingPathComponent(entries[2].id + ".entry")
        var bytes = try Data(contentsOf: flipped)
        bytes[bytes.count - 3] ^= 0xFF
        try bytes.write(to: flipped)
        try Data("not an entry".utf8).write(to: pending.appendingPathComponent("00000000000000000000-00000000.entry"))

        let outbox = makeOutbox()
        let problems = Collector<OutboxProblem>()
        outbox.onProblem = { problems.append($0) }
        outbox.resume()
        waitUntil("drained") { outbox.pendingCount == 0 && problems.count == 3 }
        XCTAssertEqual(log.numbers, [1, 4])
        XCTAssertEqual(problems.values.map(\.kind), [.corruptFile, .corruptFile, .corruptFile])
        XCTAssertEqual(Set(problems.values.compactMap(\.entryID)), ["00000000000000000000-00000000", entries[1].id, entries[2].id])
        XCTAssertEqual(outbox.setAsideFiles().count, 3)
        XCTAssertEqual(Set(problems.values.compactMap(\.file)), Set(outbox.setAsideFiles()))
        XCTAssertEqual(files("pending"), [])
        outbox.removeSetAsideFiles()
        XCTAssertEqual(files("aside"), [])
    }

    func testTemporaryFilesOfProcessesThatEndedAreRemovedAndOthersKept() throws {
        let outbox = makeOutbox()
        _ = outbox.pendingCount  // prepares the folder
        let tmp = folder.appendingPathComponent("tmp")
        // A pid that no process has (pid_max is at most 2^22 on Linux), and this process's.
        try Data("half".utf8).write(to: tmp.appendingPathComponent("99999999-00000000000000000001-00000000.entry"))
        try Data("mine".utf8).write(to: tmp.appendingPathComponent("\(getpid())-00000000000000000002-00000000.entry"))
        _ = makeOutbox().pendingCount
        XCTAssertEqual(files("tmp"), ["\(getpid())-00000000000000000002-00000000.entry"])
        XCTAssertEqual(makeOutbox().pendingCount, 0, "a temporary file is never an entry")
    }

    func testAReadOnlyFolderRefusesSendWithAStorageErrorAndLosesNothing() throws {
        serveEvents()
        let outbox = makeOutbox()
        let stored = try (1...3).map { try outbox.send(EventRequest(n: $0)).idempotencyKey }
        // Readable by all, writable by none.
        try Process.run(URL(fileURLWithPath: "/bin/chmod"), arguments: ["-R", "a=rX", folder.path]).waitUntilExit()
        // Another process (as uid 65534 when this one is root, whom permissions do not stop).
        let child = try runChild(["try-send", folder.path, server.baseURL.absoluteString], environment: ["EASYNETWORK_CHILD_NOBODY": "1"])
        XCTAssertEqual(child.status, 0)
        XCTAssertTrue(child.output.hasPrefix("refused storage"), child.output)
        XCTAssertEqual(files("pending").count, 3)
        XCTAssertEqual(files("tmp"), [])
        // Writable again: every entry stored before is delivered.
        try Process.run(URL(fileURLWithPath: "/bin/chmod"), arguments: ["-R", "u+w", folder.path]).waitUntilExit()
        outbox.resume()
        waitUntil("delivered") { outbox.pendingCount == 0 }
        XCTAssertEqual(log.events.map(\.key), stored)
    }

    func testAWriteTheFileSystemRefusesIsAStorageErrorAndLeavesNoFile() throws {
        serveEvents()
        let outbox = makeOutbox()
        try outbox.send(EventRequest(n: 1))
        // A process whose files may not grow past 2,000 bytes (RLIMIT_FSIZE: write(2) fails
        // with EFBIG, as it fails with ENOSPC on a full disk): a small entry fits, a big one does not.
        let limit = ["EASYNETWORK_CHILD_FSIZE": "2000"]
        let small = try runChild(["try-send", folder.path, server.baseURL.absoluteString, "10"], environment: limit)
        XCTAssertEqual(small.output, "accepted\n")
        let big = try runChild(["try-send", folder.path, server.baseURL.absoluteString, "5000"], environment: limit)
        XCTAssertTrue(big.output.hasPrefix("refused storage write"), big.output)
        XCTAssertEqual(files("pending").count, 2)
        XCTAssertEqual(files("tmp"), [], "the failed write left its temporary file")
        outbox.resume()
        waitUntil("delivered") { outbox.pendingCount == 0 }
        XCTAssertEqual(log.numbers, [1, 1])
        XCTAssertEqual(files("aside"), [])
    }

    /// Issue 29: under a file size limit the kernel sends SIGXFSZ with the write that passes
    /// it, and the library changes no signal disposition (it is the whole process's). An app
    /// that ignores the signal gets the typed storage error from `send`; one that does not is
    /// ended by the kernel, which is what the outbox article tells an SDK author.
    func testUnderAFileSizeLimitSendIsAStorageErrorWhenTheAppIgnoresSIGXFSZAndTheProcessLives() throws {
        serveEvents()
        let limit = ["EASYNETWORK_CHILD_FSIZE": "2000"]
        let (process, output) = try startChild(["try-send", folder.path, server.baseURL.absoluteString, "5000"], environment: limit)
        process.waitUntilExit()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(process.terminationReason, .exit, text)
        XCTAssertEqual(process.terminationStatus, 0, text)
        let lines = text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2, text)
        XCTAssertTrue(lines.first?.hasPrefix("refused storage ") ?? false, text)
        XCTAssertEqual(lines.last, "SIGXFSZ ignored", "the library changed the signal's disposition")
        XCTAssertEqual(files("pending"), [])
        XCTAssertEqual(files("tmp"), [], "the failed write left its temporary file")
    }

    func testUnderAFileSizeLimitAnAppThatDoesNotIgnoreSIGXFSZIsEndedByTheKernel() throws {
        serveEvents()
        let limit = ["EASYNETWORK_CHILD_FSIZE": "2000", "EASYNETWORK_CHILD_SIGXFSZ": "default"]
        let (process, output) = try startChild(["try-send", folder.path, server.baseURL.absoluteString, "5000"], environment: limit)
        process.waitUntilExit()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(process.terminationReason, .uncaughtSignal, text)
        XCTAssertEqual(process.terminationStatus, SIGXFSZ, text)
        XCTAssertEqual(text, "", "it ended in the write, before send returned")
        // Its temporary file stays until the next outbox on the folder starts.
        let outbox = makeOutbox()
        XCTAssertEqual(outbox.pendingCount, 0)
        XCTAssertEqual(files("tmp"), [])
    }

    func testSendingChangesNoSignalDisposition() throws {
        serveEvents()
        func disposition() -> Int {
            // Read by setting it back at once (`signal` returns the one it replaces).
            let current = signal(SIGXFSZ, SIG_DFL)
            signal(SIGXFSZ, current)
            return unsafeBitCast(current, to: Int.self)
        }
        let before = disposition()
        let outbox = makeOutbox()
        try outbox.send(EventRequest(n: 1))
        outbox.resume()
        waitUntil("delivered") { outbox.pendingCount == 0 }
        XCTAssertEqual(disposition(), before)
    }

    func testTheFolderSortsNamesAsTheStandardLibraryDoes() {
        let state = makeOutbox()  // for its names only
        for count in [0, 1, 2, 3, 10, 1_000] {
            let names = (0..<count).map { _ in state.newName() }.shuffled() + ["b", "a", "b", "", "a-1"].prefix(count)
            var sorted = names
            Outbox.sort(&sorted)
            XCTAssertEqual(sorted, names.sorted(), "\(count) names")
        }
    }
}
