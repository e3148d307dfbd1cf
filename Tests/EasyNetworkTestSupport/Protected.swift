import Foundation

/// A value guarded by a lock, for tests that share state with callbacks. (The library
/// itself keeps its state in stored properties under `Lock`, which specializes nothing.)
public final class Protected<Value>: @unchecked Sendable {  // unchecked: `value` is only touched under `mutex`
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Reads the value (or something derived from it) under the lock.
    public func read<T>(_ body: (Value) throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(value)
    }

    /// Mutates the value under the lock and returns what `body` returns.
    @discardableResult
    public func write<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
