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

    private let lock = Lock()
    private var entries: [Entry] = []

    /// Creates an empty bag.
    public init() {}

    deinit {
        cancelAll()
    }

    /// Adds an operation; the bag will cancel it if it is still running when the bag
    /// is released or ``cancelAll()`` is called.
    public func insert(_ operation: Operation) {
        lock.lock()
        // Released and finished operations leave as a new one comes in.
        var kept: [Entry] = []
        for entry in entries where entry.unfinished != nil {
            kept.append(entry)
        }
        kept.append(Entry(operation))
        entries = kept
        lock.unlock()
    }

    /// Cancels every operation in the bag and empties it.
    public func cancelAll() {
        lock.lock()
        let operations = unfinished()
        entries.removeAll()
        lock.unlock()
        for operation in operations {
            operation.cancel()
        }
    }

    /// The operations in the bag that have not finished.
    public var operations: [Operation] {
        lock.lock()
        defer { lock.unlock() }
        return unfinished()
    }

    /// The operations still alive and not finished, in the order they came; under `lock`.
    /// One loop for all three callers (each `compactMap`/`filter`/`removeAll(where:)`
    /// compiled its own copy).
    private func unfinished() -> [Operation] {
        var alive: [Operation] = []
        for entry in entries {
            if let operation = entry.unfinished {
                alive.append(operation)
            }
        }
        return alive
    }
}
