import Foundation

/// The outbox's folder and every file operation on it (its paths are fields of the
/// outbox, made once in its initializer: every file operation names one) (POSIX calls, so that each error is
/// an `errno` and each flush is an `fsync`):
///
/// - `pending/<id>.entry`: accepted entries, oldest name first;
/// - `dead/<id>.entry`: dead letters;
/// - `aside/`: torn or damaged files, set aside;
/// - `tmp/<pid>-<id>.entry`: files being written, renamed into `pending/` or `dead/`
///   once whole and flushed; those of a process that no longer runs are removed;
/// - `lock`: the delivery lock (`Outbox+FolderLock.swift`).
///
/// A file appears under its final name only whole and flushed (written in `tmp/`, fsynced,
/// renamed, the directory fsynced): a process killed at any instant leaves either the old
/// state or the new one, plus at most a temporary file.
///
extension Outbox {
    static let suffix = ".entry"

    /// Creates the folder (owner-only, its parents as needed) and its subfolders; idempotent.
    func prepare() throws {
        let path = folder.path
        if mkdir(path, 0o700) != 0, errno == ENOENT {
            try? FileManager.default.createDirectory(at: folder.deletingLastPathComponent(), withIntermediateDirectories: true)
        }
        try Self.makeDirectory(path)
        try Self.makeDirectory(pendingPath)
        try Self.makeDirectory(deadPath)
        try Self.makeDirectory(asidePath)
        try Self.makeDirectory(tmpPath)
#if canImport(Darwin)
        // Entries are transient: they stay out of the user's backups.
        var values = URLResourceValues()
        values.isExcludedFromBackup = true
        var url = folder
        try? url.setResourceValues(values)
#endif
    }

    /// Creates the folder `path` (owner-only) unless it exists.
    @inline(never)
    @_optimize(size)
    private static func makeDirectory(_ path: String) throws {
        if mkdir(path, 0o700) != 0, errno != EEXIST { try OutboxError.storage("mkdir", path, errno: errno) }
    }

    /// The path of the entry file of `id` in `folder` (a subfolder's path).
    @inline(never)
    func path(_ id: String, in folder: String) -> String {
        folder + "/" + id + Self.suffix
    }

    /// Writes the entry file `bytes` durably as the file of `id` in `folder`, replacing
    /// one of that name. On failure nothing is left behind and the old file, if any, is intact.
    @inline(never)
    @_optimize(size)
    func write(_ bytes: [UInt8], id: String, to folder: String) throws {
        let temporary = path(String(getpid()) + "-" + id, in: tmpPath)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { try OutboxError.storage("open", temporary, errno: errno) }
        // The call that failed, and its errno.
        var failed = "", code: Int32 = 0
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count, let base = buffer.baseAddress {
                let written = Foundation.write(descriptor, base + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written == 0 || errno != EINTR {
                    (failed, code) = ("write", written < 0 ? errno : EIO)
                    return
                }
            }
        }
        if failed.isEmpty, flushes, !Self.flush(descriptor) {
            (failed, code) = ("fsync", errno)
        }
        close(descriptor)
        if failed.isEmpty, rename(temporary, path(id, in: folder)) != 0 {
            (failed, code) = ("rename", errno)
        }
        if !failed.isEmpty {
            unlink(temporary)
            try OutboxError.storage(failed, temporary, errno: code)
        }
        guard !flushes || Self.syncDirectory(folder) else { try OutboxError.storage("fsync", folder, errno: errno) }
    }

    /// Flushes a file to the storage device: `F_FULLFSYNC` on Apple platforms (plain
    /// `fsync` there may leave the data in the drive's cache), else `fsync`.
    private static func flush(_ descriptor: Int32) -> Bool {
#if canImport(Darwin)
        if fcntl(descriptor, F_FULLFSYNC) == 0 { return true }
#endif
        while fsync(descriptor) != 0 {
            if errno != EINTR { return false }
        }
        return true
    }

    /// Flushes a subfolder's entries (a rename in it is durable once this returns).
    private static func syncDirectory(_ folder: String) -> Bool {
        let descriptor = open(folder, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return fsync(descriptor) == 0
    }

    /// The bytes of the entry file of `id` in `folder`; `nil` when there is none
    /// (delivered or removed by another outbox on the folder).
    @inline(never)
    func read(_ id: String, in folder: String) throws -> [UInt8]? {
        let file = path(id, in: folder)
        let descriptor = open(file, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            try OutboxError.storage("open", file, errno: errno)
        }
        defer { close(descriptor) }
        // The size from the file's end (no stat: file timestamps are an API an app must give
        // Apple a reason for).
        let end = lseek(descriptor, 0, SEEK_END)
        guard end >= 0, lseek(descriptor, 0, SEEK_SET) == 0 else { try OutboxError.storage("lseek", file, errno: errno) }
        var bytes = [UInt8](repeating: 0, count: Int(end))
        var count = 0, code: Int32 = 0
        bytes.withUnsafeMutableBytes { buffer in
            while count < buffer.count, let base = buffer.baseAddress {
                let read = Foundation.read(descriptor, base + count, buffer.count - count)
                if read > 0 {
                    count += read
                } else if read == 0 {
                    return
                } else if errno != EINTR {
                    code = errno
                    return
                }
            }
        }
        guard code == 0 else { try OutboxError.storage("read", file, errno: code) }
        // A file cut short meanwhile leaves zeros at the end: refused as torn.
        return bytes
    }

    /// The size of the entry file of `id` in `folder`, 0 when there is none: where its end
    /// is (no stat, see ``read(_:in:)``).
    @inline(never)
    @_optimize(size)
    func size(_ id: String, in folder: String) -> Int {
        let descriptor = open(path(id, in: folder), O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return 0 }
        defer { close(descriptor) }
        return max(0, Int(lseek(descriptor, 0, SEEK_END)))
    }

    /// Removes the entry file of `id` from `folder`; `true` when it is gone (also when it
    /// was already).
    @discardableResult
    @inline(never)
    func remove(_ id: String, in folder: String) -> Bool {
        unlink(path(id, in: folder)) == 0 || errno == ENOENT
    }

    /// Moves the entry file of `id` from `pending/` to `aside/` (or removes it when that
    /// fails); returns where it went.
    @_optimize(size)
    func moveAside(_ id: String) -> URL? {
        let target = path("pending-" + id, in: asidePath)
        if rename(path(id, in: pendingPath), target) == 0 {
            return URL(fileURLWithPath: target)
        }
        remove(id, in: pendingPath)
        return nil
    }

    /// The ids (names without `.entry`) of the entry files in `folder`, oldest first; adds
    /// their sizes to `bytes`. A file also named in `except` (sorted) is removed instead.
    func list(_ folder: String, bytes: inout Int, except: [String] = []) -> [String] {
        var ids: [String] = []
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasSuffix(Self.suffix) {
            let id = Self.id(name)
            if Self.index(of: id, in: except) != nil {
                remove(id, in: folder)
            } else {
                ids.append(id)
                bytes += size(id, in: folder)
            }
        }
        Self.sort(&ids)
        return ids
    }

    /// The id in the entry file name `name` (its `.entry` cut off).
    static func id(_ name: String) -> String {
        name.utf8CString.withUnsafeBytes { String(decoding: UnsafeRawBufferPointer(rebasing: $0.dropLast(suffix.utf8.count + 1)), as: UTF8.self) }
    }

    /// Sorts `names` ascending: a heapsort, one small loop over `[String]` (the standard
    /// library's sort would be specialized for it, some kilobytes), O(n log n) for the
    /// 10,000 names of a full folder.
    @_optimize(size)
    static func sort(_ names: inout [String]) {
        var start = names.count / 2, end = names.count
        while end > 1 {
            if start > 0 {
                start -= 1  // building the heap
            } else {
                end -= 1  // the largest goes last
                names.swapAt(0, end)
            }
            var parent = start
            while true {
                var child = 2 * parent + 1
                guard child < end else { break }
                if child + 1 < end, names[child] < names[child + 1] { child += 1 }
                guard names[parent] < names[child] else { break }
                names.swapAt(parent, child)
                parent = child
            }
        }
    }

    /// Removes the temporary files of processes that no longer run (a write cut short).
    @_optimize(size)
    func removeStaleTemporaries() {
        let me = getpid()
        for name in (try? FileManager.default.contentsOfDirectory(atPath: tmpPath)) ?? [] {
            // The pid before the dash (`strtol` stops there); 0 for a name that has none.
            let pid = Int32(truncatingIfNeeded: strtol(name, nil, 10))
            if pid > 0, pid != me, kill(pid, 0) != 0, errno == ESRCH {
                unlink(tmpPath + "/" + name)
            }
        }
    }
}
