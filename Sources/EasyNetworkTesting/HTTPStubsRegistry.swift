import Foundation

/// Maps set IDs to live ``HTTPStubs`` sets without keeping them alive.
final class HTTPStubsRegistry: @unchecked Sendable {  // unchecked: `lastID` and `entries` guarded by `lock`
    /// The process-wide registry.
    static let shared = HTTPStubsRegistry()

    private struct Entry {
        weak var stubs: HTTPStubs?
    }

    private let lock = NSLock()
    private var lastID = 0
    private var entries: [Int: Entry] = [:]

    /// A fresh ID (1, 2, 3, ...), never reused.
    func makeID() -> Int {
        lock.lock()
        defer { lock.unlock() }
        lastID += 1
        return lastID
    }

    /// Makes `stubs` findable under its ID.
    func register(_ stubs: HTTPStubs) {
        lock.lock()
        defer { lock.unlock() }
        entries[stubs.id] = Entry(stubs: stubs)
    }

    /// Forgets the set with `id`.
    func unregister(id: Int) {
        lock.lock()
        defer { lock.unlock() }
        entries[id] = nil
    }

    /// The live set with `id`, if any.
    func stubs(id: Int) -> HTTPStubs? {
        lock.lock()
        defer { lock.unlock() }
        return entries[id]?.stubs
    }
}
