#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The host's ``TokenAuthenticator`` in one request: a `RequestPlugIn` whose
/// interceptor (itself) adapts and decides retries ahead of the host's. `adapt`
/// waits for the credential and puts it on the request; `retry` answers an
/// unauthorized attempt by refreshing (or joining the refresh, or taking a newer
/// token) and replays once.
///
/// While the request waits for a refresh, its operation's `NetworkQueue` slot is lent
/// out (see `SlotLoan`), so the refresh never waits for a slot the waiters hold; a
/// token comes back into the queue's limit before it is sent, and a failure ends the
/// request and needs no slot.
final class TokenPlugIn: RequestPlugIn, RequestInterceptor, @unchecked Sendable {
    // unchecked: `sent` and `loan` are read and written only under `lock`.
    private let authenticator: TokenAuthenticator
    private let service: EasyNetworkService
    private let lock = Lock()
    /// The credential the last attempt was sent with.
    private var sent: TokenAuthenticator.Credential?
    /// The loan of the wait in progress, given back by ``end()`` if the request ends first.
    private var loan: SlotLoan?

    init(authenticator: TokenAuthenticator, service: EasyNetworkService) {
        self.authenticator = authenticator
        self.service = service
    }

    var interceptor: (any RequestInterceptor)? { self }

    /// The token the last attempt was sent with (the cache keys on it).
    var credential: String? {
        lock.lock()
        defer { lock.unlock() }
        return sent?.token
    }

    /// Waits for the credential (see ``TokenAuthenticator/credential(after:parked:_:)``) and
    /// puts it on the request; a token holding CR, LF or NUL fails the request
    /// (`invalidRequest`, with a `HeaderFieldError`).
    func adapt(_ urlRequest: URLRequest, context: RequestContext, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        let loan = newLoan()
        authenticator.credential(parked: loan.lend) { [self] result in
            switch result {
            case .success(let credential):
                // Foundation on Linux drops a header value holding CR or LF: a token with a
                // line break is refused here, untrimmed, instead of going out as no token.
                if let token = credential.token, !HeaderFieldCheck.isValidValue(token) {
                    loan.giveBack()
                    let source = "the token of the host's TokenAuthenticator"
                    return completion(.failure(HeaderFieldCheck.failure(name: nil, value: token, source: source, url: urlRequest.url)))
                }
                loan.giveBack { [self] in
                    var authorized = urlRequest
                    authenticator.authorize(&authorized, with: credential)
                    lock.lock()
                    sent = credential
                    lock.unlock()
                    completion(.success(authorized))
                }
            case .failure(let error):
                loan.giveBack()
                completion(.failure(error))
            }
        }
    }

    /// An unauthorized answer to an attempt sent with a token is replayed once with a
    /// newer one (see ``TokenAuthenticator/credential(after:parked:_:)``).
    func retry(_ error: NetworkError, context: RequestContext, completion: @escaping @Sendable (RetryDecision) -> Void) {
        lock.lock()
        let credential = sent
        lock.unlock()
        guard error.isUnauthorized, let credential, context.retryCount(decidedBy: self) == 0 else {
            completion(.pass)
            return
        }
        let loan = newLoan()
        authenticator.credential(after: credential.generation, parked: loan.lend) { result in
            switch result {
            case .success:
                loan.giveBack { completion(.retry(after: 0)) }
            case .failure(let refreshError):
                loan.giveBack()
                completion(.fail(refreshError))
            }
        }
    }

    /// The request ended (cancelled while waiting, say): a slot lent while it waited
    /// comes back now.
    func end() {
        lock.lock()
        let lent = loan
        loan = nil
        lock.unlock()
        lent?.giveBack()
    }

    private func newLoan() -> SlotLoan {
        let fresh = SlotLoan(from: service.lendingQueue)
        lock.lock()
        loan = fresh
        lock.unlock()
        return fresh
    }
}
