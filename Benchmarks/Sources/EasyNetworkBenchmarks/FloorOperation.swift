import Foundation

/// The floor of any Operation-based client: raw URLSession (``RawClient``) inside the least an
/// asynchronous `Operation` needs and nothing else: `isAsynchronous`, two flags under a lock,
/// KVO for the keys `OperationQueue` watches (`isExecuting`, `isFinished`), finished from the
/// task's completion handler. No EasyNetwork code runs on this path.
final class FloorOperation: Operation, @unchecked Sendable { // unchecked: both flags are guarded by `lock`
    private let lock = NSLock()
    private var executing = false
    private var finished = false
    private let raw: RawClient?
    private let delegated: DelegateClient?
    private let inPlace: Bool
    private let onDone: @Sendable (Bool) -> Void

    /// `inPlace`: `onDone` runs on the session's delegate queue instead of the main queue.
    init(raw: RawClient, inPlace: Bool = false, onDone: @escaping @Sendable (Bool) -> Void) {
        self.raw = raw
        delegated = nil
        self.inPlace = inPlace
        self.onDone = onDone
        super.init()
    }

    /// The same floor around a delegate-driven task (``DelegateClient``).
    init(delegated: DelegateClient, onDone: @escaping @Sendable (Bool) -> Void) {
        raw = nil
        self.delegated = delegated
        inPlace = false
        self.onDone = onDone
        super.init()
    }

    override var isAsynchronous: Bool { true }

    override var isExecuting: Bool {
        lock.lock()
        defer { lock.unlock() }
        return executing
    }

    override var isFinished: Bool {
        lock.lock()
        defer { lock.unlock() }
        return finished
    }

    override func start() {
        if isCancelled {
            willChangeValue(forKey: "isFinished")
            lock.lock()
            finished = true
            lock.unlock()
            didChangeValue(forKey: "isFinished")
            return
        }
        willChangeValue(forKey: "isExecuting")
        lock.lock()
        executing = true
        lock.unlock()
        didChangeValue(forKey: "isExecuting")
        if let raw, inPlace {
            raw.getInPlace(finishing: self, onDone)
        } else if let raw {
            raw.get(finishing: self, onDone)
        } else {
            delegated?.get(finishing: self, onDone)
        }
    }

    /// Called once, from the data task's completion handler (or its delegate's completion).
    func finish() {
        willChangeValue(forKey: "isExecuting")
        willChangeValue(forKey: "isFinished")
        lock.lock()
        executing = false
        finished = true
        lock.unlock()
        didChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isFinished")
    }
}
