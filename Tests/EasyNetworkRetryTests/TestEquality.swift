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
