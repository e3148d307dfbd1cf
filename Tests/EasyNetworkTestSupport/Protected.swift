import Foundation

/// A value guarded by a lock, for tests that share state with callbacks. (The library
/// itself keeps its state in stored properties under `Lock`, which specializes nothing.)
public final class Protected<Value>: @unchecked Sendable {  // unchecked: `value` is only touched under `lock`
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    /// Reads the value (or something derived from it) under the lock.
    public func read<T>(_ body: (Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(value)
    }

    /// Mutates the value under the lock and returns what `body` returns.
    @discardableResult
    public func write<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
