import Foundation

/// A value guarded by a lock: the one place the library keeps shared mutable state.
///
/// Every read and write goes through `read` / `write`, so a type that stores its
/// state in `Protected` can honestly promise `Sendable`.
///
/// The lock is a plain `pthread_mutex_t`: every request makes a few of these, and on
/// Linux an `NSLock` costs three allocations and a condition variable each.
final class Protected<Value>: @unchecked Sendable {  // unchecked: `value` is only touched under `mutex`
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    init(_ value: Value) {
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
    func read<T>(_ body: (Value) throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(value)
    }

    /// Mutates the value under the lock and returns what `body` returns.
    @discardableResult
    func write<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
