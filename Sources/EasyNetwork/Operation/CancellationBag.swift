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
    private struct Entry {
        weak var operation: Operation?
    }

    private let entries = Protected([Entry]())

    /// Creates an empty bag.
    public init() {}

    deinit {
        cancelAll()
    }

    /// Adds an operation; the bag will cancel it if it is still running when the bag
    /// is released or ``cancelAll()`` is called.
    public func insert(_ operation: Operation) {
        entries.write { entries in
            entries.removeAll { $0.operation == nil || $0.operation?.isFinished == true }
            entries.append(Entry(operation: operation))
        }
    }

    /// Cancels every operation in the bag and empties it.
    public func cancelAll() {
        let operations: [Operation] = entries.write { entries in
            defer { entries.removeAll() }
            return entries.compactMap(\.operation)
        }
        operations.forEach { $0.cancel() }
    }

    /// The operations in the bag that have not finished.
    public var operations: [Operation] {
        entries.read { $0.compactMap(\.operation).filter { !$0.isFinished } }
    }
}
