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
    // Untyped: a stored property typed with `pthread_mutex_t` would make the core carry
    // that C type's metadata and value witnesses (about 300 bytes) for its reflection record.
    @usableFromInline let storage: UnsafeMutableRawPointer

    @inline(never)  // one copy, not another inside the allocating entry
    package init() {
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        storage = UnsafeMutableRawPointer(mutex)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    @_alwaysEmitIntoClient
    var mutex: UnsafeMutablePointer<pthread_mutex_t> {
        storage.assumingMemoryBound(to: pthread_mutex_t.self)
    }

    /// Takes the lock; pair every call with ``unlock()`` on every path. Emitted into its
    /// callers: a call of `pthread_mutex_lock`, not of a function of the core that makes it.
    @_alwaysEmitIntoClient
    package func lock() {
        pthread_mutex_lock(mutex)
    }

    /// Lets go of the lock.
    @_alwaysEmitIntoClient
    package func unlock() {
        pthread_mutex_unlock(mutex)
    }
}
