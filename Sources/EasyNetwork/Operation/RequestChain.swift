import Foundation

/// Requests in sequence, each built from the previous one's typed result, run on a
/// ``NetworkQueue`` through operation dependencies (no semaphores, no blocked threads).
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
public struct RequestChain<Last>: @unchecked Sendable {
    let configuration: HostConfiguration
    let steps: [ChainStep]

    /// A chain whose first step sends `first`.
    public init<Request: APIRequest>(_ first: Request, configuration: HostConfiguration = .shared) where Request.Response == Last {
        self.configuration = configuration
        steps = [ChainStep { _ in ChainStep.plan(first) }]
    }

    private init(configuration: HostConfiguration, steps: [ChainStep]) {
        self.configuration = configuration
        self.steps = steps
    }

    /// Adds a step built from this chain's last result; return `nil` to end the chain
    /// there with success. A thrown error fails the chain at this step.
    public func then<Request: APIRequest>(_ make: @escaping (Last) throws -> Request?) -> RequestChain<Request.Response> {
        let step = ChainStep { previous in
            guard let value = previous as? Last else {
                throw NetworkError(kind: .decoding, message: "the previous step did not produce \(Last.self)")
            }
            return try make(value).map { ChainStep.plan($0) }
        }
        return RequestChain<Request.Response>(configuration: configuration, steps: steps + [step])
    }

    /// Runs the chain on `queue` and calls `completion` once.
    /// - Returns: a handle whose `cancel()` stops the chain.
    @discardableResult
    public func start(on queue: NetworkQueue, completion: @escaping (Result<ChainOutcome<Last>, ChainError>) -> Void) -> ChainHandle {
        let run = makeRun(completion)
        run.enqueue(on: queue)
        return ChainHandle(run: run)
    }

    /// Runs the chain on `queue` and returns its outcome; cancelling the calling task
    /// cancels the chain, at any moment: a task cancelled before the chain was queued
    /// sends nothing, and one cancelled later sends no further step. It throws a
    /// cancellation unless every step had already answered.
    /// - Throws: ``ChainError``.
    public func run(on queue: NetworkQueue) async throws -> ChainOutcome<Last> {
        let waiter = Protected<CheckedContinuation<ChainOutcome<Last>, any Error>?>(nil)
        // The run exists before the cancellation handler, so a cancel that comes first is
        // kept by the run itself (its operations are cancelled before they are queued).
        let run = makeRun { result in
            let continuation: CheckedContinuation<ChainOutcome<Last>, any Error>? = waiter.write { waiting in
                defer { waiting = nil }
                return waiting
            }
            continuation?.resume(with: result.mapError { $0 as any Error })
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ChainOutcome<Last>, any Error>) in
                waiter.write { $0 = continuation }
                run.enqueue(on: queue)
            }
        } onCancel: {
            run.cancel()
        }
    }

    private func makeRun(_ completion: @escaping (Result<ChainOutcome<Last>, ChainError>) -> Void) -> ChainRun {
        ChainRun(configuration: configuration, steps: steps) { results, error, endedEarly in
            if let error {
                completion(.failure(error))
            } else {
                completion(.success(ChainOutcome(results: results, endedEarly: endedEarly)))
            }
        }
    }

}

/// A step of a chain: builds its request from the previous result (`nil` ends the chain).
struct ChainStep {
    /// What a step sends and how it decodes.
    struct Plan: @unchecked Sendable {
        let request: any BaseAPIRequest
        let decode: @Sendable (NetworkResponse) throws -> Any?
    }

    let build: (Any?) throws -> Plan?

    static func plan<Request: APIRequest>(_ request: Request) -> Plan {
        let decoder = request.responseDecoder
        return Plan(request: request) { response in try decoder.decode(response) }
    }
}

/// What a finished chain produced.
public struct ChainOutcome<Last>: @unchecked Sendable {
    /// The result of every step that ran, in order (`Any`, each of its step's type).
    public let results: [Any]
    /// Whether a builder ended the chain before its last step.
    public let endedEarly: Bool

    /// The last step's result, or `nil` when the chain ended early before it.
    public var last: Last? {
        endedEarly ? nil : results.last as? Last
    }
}

/// Stops a running chain.
public struct ChainHandle: Sendable {
    let run: ChainRun

    /// Cancels the chain: the step in flight is cancelled, later steps never run, and
    /// the completion reports a cancellation at that step.
    public func cancel() {
        run.cancel()
    }
}
