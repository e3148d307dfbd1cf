@testable import EasyNetworkRetry

// The library never compares signals or breaker states, so it compiles no `==` for them;
// the tests compare every part a signal has: whether it is a success, and its failure's
// status or code.
extension HostSignal: Equatable {
    public static func == (lhs: HostSignal, rhs: HostSignal) -> Bool {
        lhs.isSuccess == rhs.isSuccess && lhs.failure == rhs.failure
    }
}

extension HostSignal.Failure: Equatable {
    public static func == (lhs: HostSignal.Failure, rhs: HostSignal.Failure) -> Bool {
        lhs.status == rhs.status && lhs.transportCode == rhs.transportCode
    }
}

// The breaker's phases and answers, compared case by case and value by value.
extension BreakerState.Phase: Equatable {
    public static func == (lhs: BreakerState.Phase, rhs: BreakerState.Phase) -> Bool {
        switch (lhs, rhs) {
        case (.closed, .closed), (.probing, .probing): return true
        case (.open(let left), .open(let right)): return left == right
        default: return false
        }
    }
}

extension BreakerState.Admission: Equatable {
    public static func == (lhs: BreakerState.Admission, rhs: BreakerState.Admission) -> Bool {
        switch (lhs, rhs) {
        case (.go, .go), (.probe, .probe): return true
        case (.refused(let left), .refused(let right)): return left == right
        default: return false
        }
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
