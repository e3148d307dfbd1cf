@testable import EasyNetwork
@testable import EasyNetworkRetry
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The library keeps signals, failures and the breaker's state as tuples and fields, and
// compiles no `==` for them; the tests compare every part they have through these views.

/// A failure: its status, or its transport error's code.
struct TestFailure: Equatable {
    let status: Int?
    let code: URLError.Code?

    init(_ failure: HostFailure) {
        (status, code) = (failure.status, failure.code)
    }

    static func status(_ status: Int) -> TestFailure { TestFailure((status, nil)) }
    static func transport(_ code: URLError.Code) -> TestFailure { TestFailure((nil, code)) }
}

/// A signal: whether it is an answer, and its failure.
struct TestSignal: Equatable {
    let answered: Bool
    let failure: TestFailure?

    init(_ signal: HostSignal) {
        answered = signal.answered
        failure = signal.failure.map(TestFailure.init)
    }

    private init(answered: Bool, failure: TestFailure?) {
        self.answered = answered
        self.failure = failure
    }

    static let success = TestSignal(answered: true, failure: nil)
    static let none = TestSignal(answered: false, failure: nil)
    static func failure(_ failure: TestFailure) -> TestSignal { TestSignal(answered: true, failure: failure) }
}

/// The breaker's phase, read from the engine's fields.
enum BreakerPhase: Equatable {
    case closed
    case open(until: TimeInterval)
    case probing
    /// Open and probing at once: a state the breaker never has.
    case invalid
}

/// What the breaker answers an attempt.
enum BreakerAdmission: Equatable {
    case go
    case probe
    case refused(retryIn: TimeInterval?)
}

/// What the engine answers an attempt.
enum EngineAdmission {
    case go
    case probe
    case refused(NetworkError)
}

extension RetryEngine {
    var phase: BreakerPhase {
        switch (openUntil, probeOut) {
        case (nil, false): return .closed
        case (let until?, false): return .open(until: until)
        case (nil, true): return .probing
        default: return .invalid
        }
    }

    func breakerAdmission(now: TimeInterval) -> BreakerAdmission {
        let answer = breakerAdmit(now: now)
        if answer.refused { return .refused(retryIn: answer.retryIn) }
        return answer.probe ? .probe : .go
    }

    func admission(url: URL?, previous: NetworkError?) -> EngineAdmission {
        let (refusal, probe) = admit(url: url, previous: previous)
        if let refusal { return .refused(refusal) }
        return probe ? .probe : .go
    }
}

// The rules compile no `==` either (the library never compares them); the tests compare
// every number a rule has.
extension RetryBudget: Equatable {
    public static func == (lhs: RetryBudget, rhs: RetryBudget) -> Bool {
        lhs.maxTokens == rhs.maxTokens && lhs.tokenRatio == rhs.tokenRatio && lhs.refillInterval == rhs.refillInterval
    }
}

extension Backpressure: Equatable {
    public static func == (lhs: Backpressure, rhs: Backpressure) -> Bool {
        lhs.statusCodes == rhs.statusCodes && lhs.maxRetryAfter == rhs.maxRetryAfter && lhs.spread == rhs.spread
    }
}

extension CircuitBreaker: Equatable {
    public static func == (lhs: CircuitBreaker, rhs: CircuitBreaker) -> Bool {
        lhs.failureThreshold == rhs.failureThreshold && lhs.coolDown == rhs.coolDown && lhs.spread == rhs.spread
    }
}
