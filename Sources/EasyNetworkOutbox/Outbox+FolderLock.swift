import Foundation

/// The folder's delivery lock: the file `lock` in the folder, held with `flock(2)` by the
/// one outbox that delivers. `flock` locks belong to an open file, not to a process, so
/// two outboxes on one folder exclude each other in one process as in two; the kernel
/// lets go of a lock when its process ends, however it ends.
///
/// Kept in the outbox's state (its open descriptor, `lockDescriptor`), but not under the
/// outbox's lock: the outbox uses it only on its work queue (and its `deinit` lets it go).
extension Outbox {
    /// Whether this outbox holds the lock.
    var holdsFolderLock: Bool { lockDescriptor >= 0 }

    /// Takes the lock, the file `lock` in the folder, if it is free, without waiting. `false`
    /// when another holds it; an error when the lock file cannot be opened (a read-only folder).
    @_optimize(size)
    func tryAcquireFolderLock() throws -> Bool {
        guard lockDescriptor < 0 else { return true }
        let path = folder.path + "/lock"
        let opened = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard opened >= 0 else { try OutboxError.storage("open", path, errno: errno) }
        while flock(opened, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            let code = errno
            close(opened)
            if code == EWOULDBLOCK { return false }
            try OutboxError.storage("flock", path, errno: code)
        }
        lockDescriptor = opened
        return true
    }

    /// Lets go of the lock (closing the file releases it).
    @inline(never)
    @_optimize(size)
    func releaseFolderLock() {
        guard lockDescriptor >= 0 else { return }
        close(lockDescriptor)
        lockDescriptor = -1
    }
}
