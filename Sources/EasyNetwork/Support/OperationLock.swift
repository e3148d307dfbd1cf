import Foundation

/// The lock of a ``ServiceOperation`` and its library subclasses (and of small library
/// objects such as `EasyNetworkPlugins`' `SlotLoan`): one of a fixed pool of mutexes, picked by the owner's
/// address.
///
/// An operation keeps its own state and its subclasses' state under this one lock
/// (instead of a lock object each), and the lock itself is shared, made once and
/// never freed: making, cancelling and freeing 100,000 queued operations allocates
/// nothing for locking, and the mutexes stay in cache. Two operations may share a mutex;
/// it is recursive, so one operation's lock taken while another's is held (a `deinit`
/// run by a release, say) never deadlocks on the same thread. Nothing under the lock
/// waits for another thread.
package struct OperationLock: Sendable {
    private static let stripes = 256
    // Made once and never freed: the mutexes live as long as the process.
    nonisolated(unsafe) private static let pool: UnsafeMutablePointer<pthread_mutex_t> = {
        let pool = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: stripes)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        for index in 0..<stripes {
            (pool + index).initialize(to: pthread_mutex_t())
            pthread_mutex_init(pool + index, &attributes)
        }
        pthread_mutexattr_destroy(&attributes)
        return pool
    }()

    private let index: Int

    /// The lock for `owner` (stable for the owner's lifetime).
    package init(for owner: AnyObject) {
        // Objects are at least 16-byte aligned: drop the bits that never vary.
        let address = UInt(bitPattern: ObjectIdentifier(owner))
        index = Int((address >> 4 ^ address >> 12) % UInt(Self.stripes))
    }

    /// Takes the lock; pair with ``unlock()``.
    @inline(__always)
    package func lock() {
        pthread_mutex_lock(Self.pool + index)
    }

    /// Lets go of the lock.
    @inline(__always)
    package func unlock() {
        pthread_mutex_unlock(Self.pool + index)
    }
}
