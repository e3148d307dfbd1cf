import Foundation

/// The outbox's folder and every file operation on it (POSIX calls, so that each error is
/// an `errno` and each flush is an `fsync`):
///
/// - `pending/<id>.entry`: accepted entries, oldest name first;
/// - `dead/<id>.entry`: dead letters;
/// - `aside/`: torn or damaged files, set aside;
/// - `tmp/<pid>-<id>.entry`: files being written, renamed into `pending/` or `dead/`
///   once whole and flushed; those of a process that no longer runs are removed;
/// - `lock`: see ``FolderLock``.
///
/// A file appears under its final name only whole and flushed (written in `tmp/`, fsynced,
/// renamed, the directory fsynced): a process killed at any instant leaves either the old
/// state or the new one, plus at most a temporary file.
struct EntryFolder: Sendable {
    /// The subfolders.
    enum Place: String, Sendable {
        case pending, dead, aside, tmp
    }

    /// What reading an entry file found.
    enum Read {
        case record(EntryRecord)
        /// The file is gone (delivered or removed by another outbox on the folder).
        case missing
        /// The file is not an intact entry.
        case corrupt
        case failed(OutboxError)
    }

    let root: URL
    /// The subfolders' paths, made once: every file operation names one.
    private let paths: [String]
    static let suffix = ".entry"

    init(root: URL) {
        self.root = root
        paths = [Place.pending, .dead, .aside, .tmp].map { root.appendingPathComponent($0.rawValue, isDirectory: true).path }
    }

    func url(_ place: Place) -> URL {
        root.appendingPathComponent(place.rawValue, isDirectory: true)
    }

    func path(_ place: Place, _ name: String = "") -> String {
        let folder: String
        switch place {
        case .pending: folder = paths[0]
        case .dead: folder = paths[1]
        case .aside: folder = paths[2]
        case .tmp: folder = paths[3]
        }
        return name.isEmpty ? folder : folder + "/" + name
    }

    /// Creates the folder and its subfolders (owner-only); idempotent.
    func prepare() throws {
        do {
            for place in [Place.pending, .dead, .aside, .tmp] {
                try FileManager.default.createDirectory(at: url(place), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
        } catch {
            throw OutboxError(code: .storage, message: "cannot create the outbox folder " + root.path + ": " + error.localizedDescription, underlyingError: error)
        }
#if canImport(Darwin)
        // Entries are transient: they stay out of the user's backups.
        var values = URLResourceValues()
        values.isExcludedFromBackup = true
        var folder = root
        try? folder.setResourceValues(values)
#endif
    }

    /// Writes `record` durably as `<id>.entry` in `place`, replacing a file of that name;
    /// returns its size. On failure nothing is left behind and the old file, if any, is intact.
    @discardableResult
    func write(_ record: EntryRecord, to place: Place) throws -> Int {
        let bytes = record.encoded()
        try write(bytes, name: record.id, to: place)
        return bytes.count
    }

    /// Writes the entry file `bytes` durably as `<id>.entry` in `place` (see ``write(_:to:)``).
    func write(_ bytes: [UInt8], name id: String, to place: Place) throws {
        let name = id + Self.suffix
        let temporary = path(.tmp, String(getpid()) + "-" + name)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw OutboxError.storage("open", temporary, errno: errno) }
        var failure: OutboxError?
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count, failure == nil {
                let written = Foundation.write(descriptor, base + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    failure = OutboxError.storage("write", temporary, errno: written < 0 ? errno : EIO)
                }
            }
        }
        if failure == nil, !Self.flush(descriptor) {
            failure = OutboxError.storage("fsync", temporary, errno: errno)
        }
        close(descriptor)
        if failure == nil, rename(temporary, path(place, name)) != 0 {
            failure = OutboxError.storage("rename", temporary, errno: errno)
        }
        if let failure {
            unlink(temporary)
            throw failure
        }
        guard syncDirectory(place) else { throw OutboxError.storage("fsync", path(place), errno: errno) }
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
    func syncDirectory(_ place: Place) -> Bool {
        let descriptor = open(path(place), O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return fsync(descriptor) == 0
    }

    /// The entry `name` (with its suffix) in `place`.
    func read(_ name: String, in place: Place) -> Read {
        let file = path(place, name)
        let descriptor = open(file, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            return errno == ENOENT ? .missing : .failed(OutboxError.storage("open", file, errno: errno))
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                bytes += chunk[0..<count]
            } else if count == 0 {
                break
            } else if errno != EINTR {
                return .failed(OutboxError.storage("read", file, errno: errno))
            }
        }
        guard let record = EntryRecord.decoding(bytes), record.id + Self.suffix == name else { return .corrupt }
        return .record(record)
    }

    /// Removes `name` from `place`; `true` when it is gone (also when it was already).
    @discardableResult
    func remove(_ name: String, in place: Place) -> Bool {
        unlink(path(place, name)) == 0 || errno == ENOENT
    }

    /// Moves `name` from `place` to `aside/` (or removes it when that fails); returns where it went.
    func setAside(_ name: String, from place: Place) -> URL? {
        let target = path(.aside, place.rawValue + "-" + name)
        if rename(path(place, name), target) == 0 {
            return URL(fileURLWithPath: target)
        }
        remove(name, in: place)
        return nil
    }

    /// The entry files in `place`, sorted by name (oldest first), with their sizes.
    func list(_ place: Place) -> [(name: String, size: Int)] {
        let urls = (try? FileManager.default.contentsOfDirectory(at: url(place), includingPropertiesForKeys: [.fileSizeKey])) ?? []
        var sizes: [String: Int] = [:]
        for url in urls where url.lastPathComponent.hasSuffix(Self.suffix) {
            sizes[url.lastPathComponent] = (try? url.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0
        }
        // Names sorted as plain strings: the one sort of the module.
        return Array(sizes.keys).sorted().map { ($0, sizes[$0] ?? 0) }
    }

    /// Removes the temporary files of processes that no longer run (a write cut short).
    func removeStaleTemporaries() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path(.tmp))) ?? []
        let me = getpid()
        for name in names {
            // The pid before the dash (`strtol` stops there); 0 for a name that has none.
            let pid = Int32(truncatingIfNeeded: strtol(name, nil, 10))
            guard pid > 0, pid != me else { continue }
            if kill(pid, 0) != 0, errno == ESRCH {
                unlink(path(.tmp, name))
            }
        }
    }
}
