import Foundation

/// The queue network operations run on: an `OperationQueue` with a concurrency limit.
///
/// `NetworkQueue.shared` is a convenience; an SDK may make its own so that its limit and
/// `cancelAllOperations()` never touch the host app's work.
public final class NetworkQueue: @unchecked Sendable {  // unchecked: `slotLimit`, `slotsLent` guarded by `slotLock`
    /// The default concurrency limit: 6, the usual per-host connection limit.
    @_alwaysEmitIntoClient  // a constant: no global, no getter or addressor in the core
    public static var defaultMaxConcurrentOperationCount: Int { 6 }

    /// The shared queue.
    public static let shared = NetworkQueue()

    /// The `OperationQueue` underneath, for what this type does not wrap. Set the limit
    /// with ``maxConcurrentOperationCount``: while requests wait for a token refresh,
    /// the queue underneath is lent one more slot per waiting request.
    public let operationQueue: OperationQueue
    /// Guards `slotLimit` and `slotsLent` (a lock of its own, not an operation's: the queue
    /// underneath is told the new limit under it, and takes operations' locks under its own).
    private let slotLock: Lock
    /// The queue's own limit (at least 1).
    @exclusivity(unchecked) private var slotLimit: Int
    /// Slots lent on top of the limit to operations parked for a token refresh
    /// (by `EasyNetworkPlugins`' token plug-in, which lends a waiting request's slot).
    @exclusivity(unchecked) private var slotsLent: Int

    /// Creates a queue that runs at most `maxConcurrentOperationCount` operations at once.
    @inline(never)  // one copy, not another inside `shared`'s initializer
    public init(maxConcurrentOperationCount: Int = NetworkQueue.defaultMaxConcurrentOperationCount, name: String? = nil) {
        let limit = max(1, maxConcurrentOperationCount)
        operationQueue = OperationQueue()
        operationQueue.name = name ?? "EasyNetwork.NetworkQueue"
        operationQueue.maxConcurrentOperationCount = limit
        slotLimit = limit
        // Size: set here, not where declared (in a public type each initial value
        // compiles a function with an unwind entry).
        slotLock = Lock()
        slotsLent = 0
    }

    /// Adds an operation; it starts when its dependencies are done and a slot is free.
    ///
    /// An operation of any class that was already handed to a ``NetworkQueue`` (this one
    /// or another), is running or has finished is ignored, on every platform (Foundation
    /// would stop the app for it). An operation that sits, not yet started, in a plain
    /// `OperationQueue` (including ``operationQueue``, used directly) cannot be seen:
    /// add every operation through a `NetworkQueue`.
    // Never inlined: the generic `send` and `run` would each carry a copy of the registry.
    @inline(never)
    public func addOperation(_ operation: Operation) {
        guard claim(operation) else { return }
        operationQueue.addOperation(operation)
    }

    /// Adds operations, optionally blocking until all have finished. Never wait on the
    /// callback queue of the operations' host (by default the main queue). Operations
    /// ignored by ``addOperation(_:)`` are left out, and so is every repeat of one
    /// within `operations`.
    @_alwaysEmitIntoClient  // in the caller: the seed adds one operation at a time
    public func addOperations(_ operations: [Operation], waitUntilFinished: Bool) {
        var claimed: [Operation] = []
        claimed.reserveCapacity(operations.count)
        for operation in operations where claim(operation) {
            claimed.append(operation)
        }
        operationQueue.addOperations(claimed, waitUntilFinished: waitUntilFinished)
    }

    /// Cancels every operation in the queue; each finishes and reports a cancellation.
    /// The queue starts nothing while it cancels, so an operation waiting for a slot
    /// never sends its request because a cancelled one freed the slot first.
    @_alwaysEmitIntoClient  // a forward to `operationQueue`: in the caller
    public func cancelAllOperations() {
        let wasSuspended = operationQueue.isSuspended
        operationQueue.isSuspended = true
        operationQueue.cancelAllOperations()
        operationQueue.isSuspended = wasSuspended
    }

    /// Cancels every operation of this queue that carries `tag` (see
    /// ``ServiceOperation/tags``); each finishes and reports a cancellation.
    @_alwaysEmitIntoClient  // in the caller: a program without tags carries none of it
    public func cancelOperations(tagged tag: String) {
        for case let operation as ServiceOperation in operationQueue.operations where operation.tags.contains(tag) {
            operation.cancel()
        }
    }

    /// Blocks until every operation has finished. Never call it on the callback queue.
    @_alwaysEmitIntoClient  // a forward to `operationQueue`: in the caller
    public func waitUntilAllOperationsAreFinished() {
        operationQueue.waitUntilAllOperationsAreFinished()
    }

    /// While `true`, no new operation starts; running ones go on.
    @_alwaysEmitIntoClient  // a forward to `operationQueue`: in the caller
    public var isSuspended: Bool {
        get { operationQueue.isSuspended }
        set { operationQueue.isSuspended = newValue }
    }

    /// The number of operations not yet finished.
    @_alwaysEmitIntoClient  // a forward to `operationQueue`: in the caller
    public var operationCount: Int {
        operationQueue.operationCount
    }

    /// The operations not yet finished.
    @_alwaysEmitIntoClient  // a forward to `operationQueue`: in the caller
    public var operations: [Operation] {
        operationQueue.operations
    }

    /// The concurrency limit (at least 1). An operation waiting for a token refresh
    /// does not count against it: while it waits, the queue runs one more.
    @_alwaysEmitIntoClient  // in the caller: the pipeline never sets a limit
    public var maxConcurrentOperationCount: Int {
        get { adjustSlots(limit: nil, lending: 0) }
        set { _ = adjustSlots(limit: newValue, lending: 0) }
    }

    /// Under the queue's slot lock: sets the limit (at least 1) when `limit` is given, lends
    /// `lending` more slots (`-1` gives one back; never fewer than none are lent), and then
    /// tells the queue underneath to run `limit + lent` at most. Returns the limit. One
    /// function for the limit's accessors and the token plug-in's slot loans, not an accessor set per field.
    @usableFromInline
    package func adjustSlots(limit: Int?, lending: Int) -> Int {
        slotLock.lock()
        defer { slotLock.unlock() }
        if limit != nil || lending != 0 {
            slotLimit = max(1, limit ?? slotLimit)
            slotsLent = max(0, slotsLent + lending)
            operationQueue.maxConcurrentOperationCount = slotLimit + slotsLent
        }
        return slotLimit
    }
}

// Which operations were handed to a `NetworkQueue`, so that adding one a second time (to the
// same queue or another) is ignored instead of stopping the process in Foundation's "already
// in a queue" check. Here, not in a type of its own (a namespace type is metadata and an
// accessor in every program).
//
// ``ServiceOperation``s carry their own flag and never reach the table; every other
// `Operation` is tracked in it by a weak reference, so the table never keeps one alive. The
// entry of an operation that finished or went away is reused by the next claim, so the table
// is as long as the most such operations ever waiting at once. It is a plain array of weak
// entries, searched by identity (a weak reference to an operation that went away reads `nil`,
// so a reused address is never taken for a claim): a hash table of its own would compile its
// code (about 2 KB) into every program for this rare case, and Foundation's would bridge
// every key and value.
extension NetworkQueue {
    /// A claimed operation, held weakly (replaced when its entry is taken over).
    private final class Claim {
        weak var operation: Operation?

        init(_ operation: Operation) {
            self.operation = operation
        }
    }

    private static let claimLock = Lock()
    /// Read and written only under `claimLock` (the entries' `operation` too).
    @exclusivity(unchecked) nonisolated(unsafe) private static var claims: [Claim] = []

    /// Claims `operation` for this queue: `false` when it was claimed before, is running or
    /// has finished.
    @usableFromInline
    func claim(_ operation: Operation) -> Bool {
        if let serviceOperation = operation as? ServiceOperation {
            return serviceOperation.claimEnqueue(by: self)
        }
        guard !operation.isExecuting, !operation.isFinished else { return false }
        let lock = Self.claimLock
        lock.lock()
        defer { lock.unlock() }
        var free: Claim?
        for entry in Self.claims {
            let held = entry.operation
            if held === operation {
                return false
            }
            // The first entry of an operation that finished or went away is taken over.
            if free == nil, held?.isFinished ?? true {
                free = entry
            }
        }
        if let free {
            free.operation = operation
        } else {
            Self.claims.append(Claim(operation))
        }
        return true
    }
}
