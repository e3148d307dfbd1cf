#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Requests an SDK must never lose: written to disk before ``send(_:)`` returns, then
/// delivered through the ordinary pipeline, retried across launches, each with its own
/// idempotency key, until the server takes them or gives a final answer.
///
/// ```swift
/// let outbox = Outbox(host: host, queue: queue)   // Application Support/…/<your module>/Outbox
/// outbox.onDeadLetter = { letter in report(letter.statusCode, letter.reason) }
/// outbox.resume()                                 // at launch, once the SDK is ready to send
/// try outbox.send(TrackEvent(name: "purchase"))   // returns once the entry is on disk
/// ```
///
/// See <doc:EasyNetworkOutbox> for the guarantees: what is stored (never credentials),
/// durability, at-least-once delivery, the retry rule and its limits, dead letters, and
/// the folder's lock.
public final class Outbox: @unchecked Sendable {
    // unchecked: the state fields and the callbacks are read and written only under `lock` (which,
    // not the access checker, keeps them exclusive); `lockDescriptor` is used only on `work`, a
    // serial queue; `flushes` is set before first use (tests), the rest is immutable.

    /// The folder the entries live in.
    public let folder: URL
    /// The host whose pipeline delivers the entries (its token, interceptors, callback queue).
    public let host: HostConfiguration
    /// The limits and rules, fixed at creation.
    public let options: OutboxOptions

    let queue: NetworkQueue
    /// The subfolders' paths (see `Outbox+Folder.swift`), made once: every file operation names one.
    let pendingPath: String, deadPath: String, asidePath: String, tmpPath: String
    /// Whether writes are flushed to the storage device (`fsync`). Always, but for tests
    /// that only need many entries on disk and prove nothing about power loss (set before use).
    @exclusivity(unchecked) var flushes: Bool
    // Set in init, as every field (an initial value here would be a function of its own).
    let lock: Lock
    /// Delivery decisions and their file work run here, one at a time.
    let work: DispatchQueue
    /// Serialises the first preparation of the folder (``load()``).
    private let loadLock: Lock
    // What the outbox knows of its folder (see `Outbox+State.swift`), under `lock`.
    /// The entries, waiting or being sent, sorted (one that leaves moves the names after
    /// it: a memmove of 16 bytes a name, 160 KB for a full outbox's oldest).
    @exclusivity(unchecked) var queued: [String]
    /// The entries being sent (a few: at most the width). They keep their place in `entries`.
    @exclusivity(unchecked) var inFlight: [String]
    /// Dead letters, sorted.
    @exclusivity(unchecked) var dead: [String]
    /// Entries committed since the current scan began (a scan keeps them).
    // `Optional<…>`, not `…?`: a field spelled with `?` gets an implicit initial value, a
    // function of its own.
    @exclusivity(unchecked) var scanCommits: Optional<[String]>
    /// Not before this time does the next attempt start (a backoff, a `Retry-After`).
    @exclusivity(unchecked) var waitUntil: Optional<Date>
    /// The wake-up armed on the work queue (and `counts.wakeGeneration`, a number that
    /// retires older ones).
    @exclusivity(unchecked) var wakeAt: Optional<Date>
    /// The numbers and flags, one stored tuple (a field each would be an entry each in the
    /// class's metadata, field records and offsets):
    /// - `bytes`: bytes on disk, entries and dead letters;
    /// - `reservedEntries`, `reservedBytes`: room taken by sends still writing their file;
    /// - `wakeGeneration`: see `wakeAt`;
    /// - `peakInFlight`: the most entries read into memory at once (for tests: it stays at the width);
    /// - `taken`: how many times an entry was taken to be sent (for tests: an outbox that
    ///   takes its entries back at once, in a loop, shows here);
    /// - `lastStamp`: the last name stamp handed out (nanoseconds since 1970), so names only grow;
    /// - `resumed`: whether the SDK resumed delivery;
    /// - `loaded`: whether the folder was prepared and scanned.
    @exclusivity(unchecked) var counts: (
        bytes: Int, reservedEntries: Int, reservedBytes: Int, wakeGeneration: Int, peakInFlight: Int, taken: Int, lastStamp: UInt64,
        resumed: Bool, loaded: Bool
    )
    /// The folder's lock file, open while this outbox holds the lock, else -1 (see
    /// `Outbox+FolderLock.swift`): used on the outbox's work queue, not under its lock.
    @exclusivity(unchecked) var lockDescriptor: Int32
    // The callbacks, under `lock`.
    @exclusivity(unchecked) var callbacks: Handlers

    /// An outbox for `host`, delivering on `queue`, stored in `folder`.
    ///
    /// Creating one touches no file and sends nothing: the folder is prepared on first
    /// use, and delivery waits for ``resume()``.
    ///
    /// - Parameters:
    ///   - host: the host whose pipeline sends the entries.
    ///   - queue: the queue the deliveries run on as operations (your SDK's own, ideally).
    ///   - folder: where the entries live; `nil` (the default) for
    ///     ``defaultFolder(name:fileID:)`` named after your module. Never a caches folder:
    ///     the system may empty those.
    ///   - options: limits and delivery rules.
    ///   - fileID: leave the default: it names the default folder after the calling module.
    @inline(never)
    @_optimize(size)
    public init(host: HostConfiguration, queue: NetworkQueue = .shared, folder: URL? = nil, options: OutboxOptions = OutboxOptions(), fileID: String = #fileID) {
        self.host = host
        self.queue = queue
        self.options = options
        let folder = folder ?? Self.defaultFolder(fileID: fileID)
        self.folder = folder
        let path = folder.path
        pendingPath = path + "/pending"
        deadPath = path + "/dead"
        asidePath = path + "/aside"
        tmpPath = path + "/tmp"
        flushes = true
        work = DispatchQueue(label: "EasyNetworkOutbox.work", qos: .utility)
        lock = Lock()
        loadLock = Lock()
        queued = []
        inFlight = []
        dead = []
        scanCommits = nil
        waitUntil = nil
        wakeAt = nil
        counts = (0, 0, 0, 0, 0, 0, 0, false, false)
        lockDescriptor = -1
        callbacks = (nil, nil, nil)
    }

    deinit {
        releaseFolderLock()
    }

    // MARK: Callbacks

    /// Called on the host's callback queue for each entry the server accepted (after its
    /// file was removed).
    @_alwaysEmitIntoClient  // the outbox reads its own copy: no accessor in the module
    public var onDelivered: (@Sendable (OutboxEntry) -> Void)? {
        get { changeHandlers { _ in }.delivered }
        set { changeHandlers { $0.delivered = newValue } }
    }

    /// Called on the host's callback queue, once, for each entry that became a dead letter.
    @_alwaysEmitIntoClient
    public var onDeadLetter: (@Sendable (OutboxDeadLetter) -> Void)? {
        get { changeHandlers { _ in }.deadLetter }
        set { changeHandlers { $0.deadLetter = newValue } }
    }

    /// Called on the host's callback queue for each problem the outbox handled on its own
    /// (a corrupt file set aside, an entry dropped to make room, a file it could not remove).
    @_alwaysEmitIntoClient
    public var onProblem: (@Sendable (OutboxProblem) -> Void)? {
        get { changeHandlers { _ in }.problem }
        set { changeHandlers { $0.problem = newValue } }
    }

    /// The three callbacks.
    @usableFromInline
    typealias Handlers = (
        delivered: (@Sendable (OutboxEntry) -> Void)?, deadLetter: (@Sendable (OutboxDeadLetter) -> Void)?, problem: (@Sendable (OutboxProblem) -> Void)?
    )

    /// The callbacks' one accessor: applies `change` to them under `lock` and returns them
    /// as they were (released by the caller, after the lock is let go).
    @usableFromInline
    @discardableResult
    @_optimize(size)
    func changeHandlers(_ change: (inout Handlers) -> Void) -> Handlers {
        lock.lock()
        let old = callbacks
        change(&callbacks)
        lock.unlock()
        return old
    }

    // MARK: Sending

    /// Stores `request` for delivery and returns once it is durably on disk: its file
    /// written, flushed (`fsync`; `F_FULLFSYNC` on Apple platforms), renamed into place and
    /// the folder flushed. From then on it survives a crash, a kill or a reboot.
    ///
    /// The request is built now, with the host's settings (base URL, default headers,
    /// encoders); method, URL, headers and body are stored, without `Authorization`,
    /// `Cookie` and ``OutboxOptions/unstoredHeaders``, plus an idempotency key. Its own
    /// interceptors, retry policy and timeout are not stored. Each delivery attempt adds
    /// the host's default headers of that moment the stored request lacks (the ones not
    /// stored among them), as the host's token is added.
    ///
    /// Delivery starts at once when the outbox is resumed.
    ///
    /// - Returns: the stored entry (its ``OutboxEntry/idempotencyKey`` among others).
    /// - Throws: ``OutboxError``: ``OutboxError/Code/invalidRequest`` (it cannot be built,
    ///   or has a multipart body), ``OutboxError/Code/tooLarge``, ``OutboxError/Code/full``,
    ///   ``OutboxError/Code/storage`` (the folder is read-only, the disk is full, a file
    ///   size limit when the process ignores `SIGXFSZ`, …). Nothing is stored then. Under a
    ///   file size limit, a process that does not ignore `SIGXFSZ` is ended by the kernel in
    ///   the write; the outbox changes no signal disposition (see <doc:EasyNetworkOutbox>).
    @discardableResult
    @_optimize(size)
    public func send(_ request: any BaseAPIRequest) throws -> OutboxEntry {
        try load()
        let (bytes, record) = try makeFile(request)
        // An entry's lengths are 32-bit in its file.
        guard bytes.count <= options.maxBytes, bytes.count < Int(UInt32.max) else {
            try OutboxError.fail(.tooLarge, "the entry takes " + String(bytes.count) + " bytes, more than maxBytes")
        }
        try makeRoom(for: bytes.count)
        do {
            try write(bytes, id: record.id, to: pendingPath)
        } catch {
            lock.lock()
            unreserve(bytes.count)
            lock.unlock()
            throw error
        }
        lock.lock()
        commit(record.id, size: bytes.count)
        lock.unlock()
        pumpIfResumed()
        return OutboxEntry(record: record)
    }

    // MARK: Starting and stopping

    /// Starts delivering: entries go out oldest first, ``OutboxOptions/width`` at a time,
    /// as operations on the queue, until none is left; every later ``send(_:)`` starts it
    /// again. Call it at launch once the SDK can send (its host and token are set up).
    /// An entry waiting for a backoff keeps waiting.
    @_optimize(size)
    public func resume() {
        lock.lock()
        counts.resumed = true
        lock.unlock()
        schedulePump()
    }

    /// Stops starting attempts. Attempts already sent are not cancelled: they end as
    /// they would have, and their outcome is recorded (delivered, dead letter or retry).
    /// ``send(_:)`` still stores entries. The folder's lock is let go once none is in flight.
    @_optimize(size)
    public func pause() {
        lock.lock()
        counts.resumed = false
        lock.unlock()
        schedulePump()
    }

    /// Whether delivery is paused (an outbox starts paused, until ``resume()``).
    public var isPaused: Bool {
        lock.lock()
        defer { lock.unlock() }
        return !counts.resumed
    }

    /// Entries waiting or being sent, as this outbox knows them (entries another outbox
    /// on the folder added since this one last looked are counted from its next look).
    public var pendingCount: Int {
        try? load()
        lock.lock()
        defer { lock.unlock() }
        return queuedCount
    }

    // MARK: Internals

    /// Prepares the folder and learns what it holds, once (again after a failure).
    @_optimize(size)
    func load() throws {
        loadLock.lock()
        defer { loadLock.unlock() }
        lock.lock()
        let wasLoaded = counts.loaded
        lock.unlock()
        guard !wasLoaded else { return }
        try prepare()
        removeStaleTemporaries()
        scan()
        lock.lock()
        counts.loaded = true
        lock.unlock()
    }

    /// Lists the folder and takes it as the truth (keeping what is in flight). A pending
    /// entry that is also a dead letter (a process ended between writing the letter and
    /// removing the entry) is removed.
    @inline(never)
    @_optimize(size)
    func scan() {
        lock.lock()
        beginScan()
        lock.unlock()
        var bytes = 0
        let dead = list(deadPath, bytes: &bytes)
        let pending = list(pendingPath, bytes: &bytes, except: dead)
        lock.lock()
        // Sends committed while the folder was listed, after the listing passed them: their
        // files are measured now (a few, if any).
        for id in replace(pending: pending, dead: dead, bytes: bytes) {
            grow(self.size(id, in: pendingPath))
        }
        lock.unlock()
    }

    /// Runs ``pump()`` on the work queue (every hop there and to the callback queue is the
    /// core's `QueueHop.async`, one function, not a `DispatchQueue.async` call of its own).
    @_optimize(size)
    func schedulePump() {
        QueueHop.async(work) { [self] in pump() }
    }

    /// Runs ``pump()`` on the work queue if delivery is resumed (after an entry was added).
    @_optimize(size)
    func pumpIfResumed() {
        lock.lock()
        let isResumed = counts.resumed
        lock.unlock()
        if isResumed { schedulePump() }
    }

    /// Reports a failed file operation: what failed and the error's text.
    @inline(never)
    @_optimize(size)
    func reportStorage(_ what: String, entry: String?, error: any Error) {
        report(.storage, entry, file: entry == nil ? folder : nil, what + ": " + String(describing: error))
    }

    /// Hands a problem to ``onProblem`` on the callback queue.
    @inline(never)
    @_optimize(size)
    func report(_ kind: OutboxError.Code, _ entry: String?, file: URL? = nil, _ message: String) {
        lock.lock()
        let callback = callbacks.problem
        lock.unlock()
        guard let callback else { return }
        let problem = OutboxError(code: kind, message: message, entryID: entry, file: file)
        QueueHop.async(host.callbackQueue) { callback(problem) }
    }
}
