import Foundation

/// A value guarded by a lock: the one place the library keeps shared mutable state.
///
/// Every read and write goes through `read` / `write`, so a type that stores its
/// state in `Protected` can honestly promise `Sendable`.
final class Protected<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Reads the value (or something derived from it) under the lock.
    func read<T>(_ body: (Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(value)
    }

    /// Mutates the value under the lock and returns what `body` returns.
    @discardableResult
    func write<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
