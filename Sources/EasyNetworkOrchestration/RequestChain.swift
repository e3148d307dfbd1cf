#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// Requests in sequence, each built from the previous one's typed result, run on a
/// `NetworkQueue` through operation dependencies (no semaphores, no blocked threads).
///
/// ```swift
/// RequestChain(SignIn(user: "ana"), configuration: host)
///     .then { session in GetProfile(token: session.token) }      // built from SignIn's result
///     .then { profile in profile.hasAvatar ? GetAvatar(id: profile.id) : nil }   // nil ends early
///     .start(on: queue) { result in
///         switch result {
///         case .success(let outcome): outcome.last; outcome.results      // every step's result
///         case .failure(let error): error.step; error.error              // which step and why
///         }
///     }
/// ```
///
/// A failure or cancel stops the chain: later steps are never sent. A builder that
/// returns `nil` ends the chain early with success. The completion fires exactly once,
/// on the first step's host's callback queue.
///
/// Every step's response type is `Sendable`: a step's result is made on the response
/// queue, handed to the next step's builder on the queue's thread and delivered on the
/// callback queue. Builders and the completion are `@Sendable` for the same reason.
public struct RequestChain<Last>: Sendable {
    /// The last step, which leads back to the first (one reference: the runtime's own
    /// value witnesses copy the chain).
    let last: ChainLink

    /// A chain whose first step sends `first`.
    public init<Request: APIRequest>(_ first: Request, configuration: HostConfiguration = .shared) where Request.Response == Last, Last: Sendable {
        last = ChainLink(first: chainStep(first), configuration: configuration)
    }

    private init(last: ChainLink) {
        self.last = last
    }

    /// Adds a step built from this chain's last result; return `nil` to end the chain
    /// there with success. A thrown error fails the chain at this step.
    public func then<Request: APIRequest>(
        _ make: @escaping @Sendable (Last) throws -> Request?
    ) -> RequestChain<Request.Response> where Request.Response: Sendable {
        RequestChain<Request.Response>(last: ChainLink(after: last) { previous in
            guard let value = previous as? Last else {
                // Not reached: the step before made a `Last` (a chain's types line up by `then`).
                throw orchestrationError(.decoding, "the previous step made a result of another type")
            }
            guard let request = try make(value) else {
                return nil
            }
            return chainStep(request)
        })
    }

    /// Runs the chain on `queue` and calls `completion` once.
    /// - Returns: a handle whose `cancel()` stops the chain.
    @discardableResult
    @_alwaysEmitIntoClient  // in the caller: two calls
    public func start(
        on queue: NetworkQueue,
        completion: @escaping @Sendable (Result<ChainOutcome<Last>, ChainError>) -> Void
    ) -> ChainHandle {
        let handle = prepared()
        start(handle, on: queue, completion: completion)
        return handle
    }

    /// Runs the chain on `queue` and returns its outcome; cancelling the calling task
    /// cancels the chain, at any moment: a task cancelled before the chain was queued
    /// sends nothing, and one cancelled later sends no further step. It throws a
    /// cancellation unless every step had already answered.
    /// - Throws: ``ChainError``.
    @_alwaysEmitIntoClient  // in the caller: an async function is many small functions
    public func run(on queue: NetworkQueue) async throws -> ChainOutcome<Last> {
        // The run exists before the cancellation handler, so a cancel that comes first is
        // kept by the run itself (its operations are cancelled before they are queued).
        let handle = prepared()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ChainOutcome<Last>, any Error>) in
                start(handle, on: queue) { result in
                    switch result {
                    case .success(let outcome): continuation.resume(returning: outcome)
                    case .failure(let error): continuation.resume(throwing: error)
                    }
                }
            }
        } onCancel: {
            handle.cancel()
        }
    }

    /// A run of the chain, not queued yet, behind its handle.
    @usableFromInline
    func prepared() -> ChainHandle {
        ChainHandle(run: ChainRun(last: last))
    }

    /// Queues the run behind `handle`, which reports to `completion` once.
    @usableFromInline
    func start(_ handle: ChainHandle, on queue: NetworkQueue, completion: @escaping @Sendable (Result<ChainOutcome<Last>, ChainError>) -> Void) {
        handle.run.enqueue(on: queue) { end in
            completion(end.error == nil ? .success(ChainOutcome(end)) : .failure(ChainError(end)))
        }
    }
}

/// What a step sends and how it decodes (a pair, not a type of its own).
typealias ChainStep = (request: any BaseAPIRequest, decode: @Sendable (NetworkResponse) throws -> any Sendable)

/// The step that sends `request` (one generic copy for the first step and the others).
func chainStep<Request: APIRequest>(_ request: Request) -> ChainStep where Request.Response: Sendable {
    let decoder = request.responseDecoder
    return (request, { response in try decoder.decode(response) })
}

/// A step of a chain, the link before it (`nil` for the first step) and the chain's
/// host. A list, not an array: `then` makes one link, copies nothing. The first step's
/// request is known before the chain runs; a later step's is built by its `then`
/// builder (wrapped in `next`, one closure, not a generic subclass of its own) from the
/// previous step's result.
final class ChainLink: @unchecked Sendable {
    // unchecked: every field is a `let`; a request is an immutable description
    // (BaseAPIRequest's contract), only read, as the core's own operations read it from
    // any thread; `next` captures only a `@Sendable` builder and its request's type (not
    // `@Sendable` for that metatype alone).
    let previous: ChainLink?
    let configuration: HostConfiguration
    private let first: ChainStep?
    private let next: (((any Sendable)?) throws -> ChainStep?)?

    /// The chain's first step, which sends `first`.
    init(first: ChainStep, configuration: HostConfiguration) {
        previous = nil
        self.configuration = configuration
        self.first = first
        next = nil
    }

    /// A step after `previous`, built by `next`.
    init(after previous: ChainLink, next: @escaping ((any Sendable)?) throws -> ChainStep?) {
        self.previous = previous
        configuration = previous.configuration
        first = nil
        self.next = next
    }

    /// What the step sends, built from the previous step's result (`nil` for the first
    /// step); `nil` ends the chain there.
    func plan(after previous: (any Sendable)?) throws -> ChainStep? {
        guard let next else {
            return first
        }
        return try next(previous)
    }
}

/// What a finished chain produced.
public struct ChainOutcome<Last>: Sendable {
    /// The run's end: an outcome is one reference (the runtime's shared value witnesses,
    /// none of its own; not generic, so no metadata is made per `Last`).
    private let end: ChainEnd

    init(_ end: ChainEnd) {
        self.end = end
    }

    /// The result of every step that ran, in order (each of its step's type).
    public var results: [any Sendable] { end.results }
    /// Whether a builder ended the chain before its last step.
    public var endedEarly: Bool { end.endedEarly }

    /// The last step's result, or `nil` when the chain ended early before it.
    @_alwaysEmitIntoClient  // reads the two properties above: in the caller, for its `Last`
    public var last: Last? {
        endedEarly ? nil : results.last as? Last
    }
}

/// Stops a running chain.
public struct ChainHandle: Sendable {
    let run: ChainRun<Void>

    /// Cancels the chain: the step in flight is cancelled, later steps never run, and
    /// the completion reports a cancellation at that step.
    public func cancel() {
        run.stop()
    }
}
