#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request's dealings with its host's ``TokenAuthenticator`` when it may have to wait
/// for a refresh: while it waits, its operation's `NetworkQueue` slot is lent out
/// (see `SlotLoan`), so the refresh never waits for a slot the waiters hold.
final class TokenWait: @unchecked Sendable {
    // unchecked: `loan` is read and written only under `lock`.
    private let authenticator: TokenAuthenticator
    private let service: EasyNetworkService
    /// The loan of the wait in progress, given back by ``end()`` if the request ends first.
    private var loan: SlotLoan?
    private let lock = Lock()

    init(authenticator: TokenAuthenticator, service: EasyNetworkService) {
        self.authenticator = authenticator
        self.service = service
    }

    /// The credential to send with (see ``TokenAuthenticator/credential(parked:_:)``).
    func credential(_ completion: @escaping @Sendable (Result<TokenAuthenticator.Credential, NetworkError>) -> Void) {
        let loan = newLoan()
        authenticator.credential(parked: loan.lend) { result in
            Self.resume(loan, with: result, completion)
        }
    }

    /// A request sent with `generation` came back unauthorized (see
    /// ``TokenAuthenticator/unauthorized(sentWith:parked:_:)``).
    func unauthorized(sentWith generation: Int, _ completion: @escaping @Sendable (Result<TokenAuthenticator.Credential, NetworkError>) -> Void) {
        let loan = newLoan()
        authenticator.unauthorized(sentWith: generation, parked: loan.lend) { result in
            Self.resume(loan, with: result, completion)
        }
    }

    /// Puts `credential` on `request`.
    func authorize(_ request: inout URLRequest, with credential: TokenAuthenticator.Credential) {
        authenticator.authorize(&request, with: credential)
    }

    /// The request ended (cancelled while waiting, say): its slot comes back now.
    func end() {
        lock.lock()
        let lent = loan
        loan = nil
        lock.unlock()
        lent?.giveBack()
    }

    /// A token comes back into the queue's limit before it is sent; a failure ends
    /// the request and needs no slot.
    private static func resume(
        _ loan: SlotLoan,
        with result: Result<TokenAuthenticator.Credential, NetworkError>,
        _ completion: @escaping @Sendable (Result<TokenAuthenticator.Credential, NetworkError>) -> Void
    ) {
        switch result {
        case .success: loan.giveBack { completion(result) }
        case .failure:
            loan.giveBack()
            completion(result)
        }
    }

    private func newLoan() -> SlotLoan {
        let fresh = service.slotLoan()
        lock.lock()
        loan = fresh
        lock.unlock()
        return fresh
    }
}
