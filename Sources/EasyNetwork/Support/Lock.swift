import Foundation

/// A plain mutex for a class that keeps its own mutable state in stored properties.
///
/// Non-generic on purpose: unlike a closure-taking generic `write { }` helper, a
/// `lock()`/`unlock()` pair specializes nothing per call site, so the lock costs the
/// same few bytes wherever it is used. Not recursive; nothing under it may call out to
/// user code or wait for another thread.
@usableFromInline  // named by RequestPlugIn, which the features emitted into products name
package final class Lock: @unchecked Sendable {
    // unchecked: the mutex is allocated once in init, freed in deinit, and only ever
    // used through pthread calls, which are thread-safe.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    @inline(never)  // one copy, not another inside the allocating entry
    package init() {
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Takes the lock; pair every call with ``unlock()`` on every path.
    @inline(__always)
    package func lock() {
        pthread_mutex_lock(mutex)
    }

    /// Lets go of the lock.
    @inline(__always)
    package func unlock() {
        pthread_mutex_unlock(mutex)
    }
}
