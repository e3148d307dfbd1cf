import Foundation

/// The lock of a ``ServiceOperation`` and its library subclasses (and of small library
/// objects such as a request's service): one of a fixed pool of mutexes, picked by the owner's
/// address.
///
/// An operation keeps its own state and its subclasses' state under this one lock
/// (instead of a lock object each), and the lock itself is shared, made once and
/// never freed: making, cancelling and freeing 100,000 queued operations allocates
/// nothing for locking, and the mutexes stay in cache. Two operations may share a mutex;
/// it is recursive, so one operation's lock taken while another's is held (a `deinit`
/// run by a release, say) never deadlocks on the same thread. Nothing under the lock
/// waits for another thread.
///
/// A name for a pointer to one of the pool's mutexes, whose extension below finds it and
/// takes it: no type of the core's (a struct would be metadata, a descriptor and an
/// accessor in every program).
package typealias OperationLock = UnsafeMutablePointer<pthread_mutex_t>

/// How many mutexes the pool has.
private let operationLockStripes = 256
// Made once and never freed: the mutexes live as long as the process.
nonisolated(unsafe) private let operationLockPool: UnsafeMutablePointer<pthread_mutex_t> = {
    let pool = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: operationLockStripes)
    var attributes = pthread_mutexattr_t()
    pthread_mutexattr_init(&attributes)
    pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
    for index in 0..<operationLockStripes {
        (pool + index).initialize(to: pthread_mutex_t())
        pthread_mutex_init(pool + index, &attributes)
    }
    pthread_mutexattr_destroy(&attributes)
    return pool
}()

extension UnsafeMutablePointer where Pointee == pthread_mutex_t {
    /// The lock for `owner` (stable for the owner's lifetime).
    package init(for owner: AnyObject) {
        // Objects are at least 16-byte aligned: drop the bits that never vary.
        let address = UInt(bitPattern: ObjectIdentifier(owner))
        self = operationLockPool + Int((address >> 4 ^ address >> 12) % UInt(operationLockStripes))
    }

    /// Takes the lock; pair with ``unlock()``. Emitted into its callers: a call of
    /// `pthread_mutex_lock`, not of a function of the core that makes it.
    @_alwaysEmitIntoClient
    package func lock() {
        pthread_mutex_lock(self)
    }

    /// Lets go of the lock.
    @_alwaysEmitIntoClient
    package func unlock() {
        pthread_mutex_unlock(self)
    }
}
