#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// Ties operations to the lifetime of their owner, without the owner holding them.
///
/// Keep a bag as a property of the owner (a view controller, a presenter) and put the
/// owner's operations in it. The bag holds them weakly; when the owner goes away, the
/// bag goes with it and cancels every operation still running, which then finishes and
/// reports a cancellation. (EasyNetwork does not touch the Objective-C runtime, so it
/// cannot watch an arbitrary object's deallocation; the bag is the owner's part.)
///
/// ```swift
/// final class ProfileScreen {
///     private let requests = CancellationBag()
///     func load() {
///         let op = RequestOperation(request: GetProfile(), decoding: Profile.self)
///         requests.insert(op)
///         queue.addOperation(op)
///     }
/// }
/// ```
public final class CancellationBag: @unchecked Sendable {
    // unchecked: `entries` is read and written only under `lock`.
    /// An operation held weakly. A class: a struct with a weak field brings value
    /// witnesses of its own into the binary.
    private final class Entry {
        weak var operation: Operation?

        init(_ operation: Operation) {
            self.operation = operation
        }

        /// The operation, while it is alive and not finished.
        var unfinished: Operation? {
            guard let operation, !operation.isFinished else { return nil }
            return operation
        }
    }

    // No initial values where declared: in a public type each compiles a function.
    private let lock: Lock
    private var entries: [Entry]

    /// Creates an empty bag.
    public init() {
        lock = Lock()
        entries = []
    }

    deinit {
        cancelAll()
    }

    /// Adds an operation; the bag will cancel it if it is still running when the bag
    /// is released or ``cancelAll()`` is called.
    @_alwaysEmitIntoClient  // one call: in the caller
    public func insert(_ operation: Operation) {
        _ = sweep(adding: operation, emptying: false)
    }

    /// Cancels every operation in the bag and empties it.
    @inline(never)  // one copy, not another inside `deinit`
    public func cancelAll() {
        for operation in sweep(adding: nil, emptying: true) {
            operation.cancel()
        }
    }

    /// The operations in the bag that have not finished.
    @_alwaysEmitIntoClient  // one call: in the caller
    public var operations: [Operation] {
        sweep(adding: nil, emptying: false)
    }

    /// The operations still alive and not finished, in the order they came, under the
    /// lock; released and finished ones leave the bag, `adding` comes in, and the bag is
    /// left empty when `emptying`. One loop for all three callers (each
    /// `compactMap`/`filter`/`removeAll(where:)` compiled its own copy).
    @usableFromInline
    final func sweep(adding: Operation?, emptying: Bool) -> [Operation] {
        lock.lock()
        var alive: [Operation] = []
        var kept: [Entry] = []
        for entry in entries {
            if let operation = entry.unfinished {
                alive.append(operation)
                kept.append(entry)
            }
        }
        if let adding {
            kept.append(Entry(adding))
        }
        entries = emptying ? [] : kept
        lock.unlock()
        return alive
    }
}
