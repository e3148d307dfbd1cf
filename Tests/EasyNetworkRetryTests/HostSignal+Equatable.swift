@testable import EasyNetworkRetry

// The library never compares signals, so it compiles no `==` for them; the tests compare
// every part a signal has: whether it is a success, and its failure's status or code.
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
