#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The host's ``TokenAuthenticator`` in one request: a `RequestPlugIn` whose
/// interceptor (itself) adapts and decides retries ahead of the host's. `adapt`
/// waits for the credential (lending the request's queue slot while it waits, see
/// ``TokenWait``) and puts it on the request; `retry` answers an unauthorized attempt
/// by refreshing (or joining the refresh, or taking a newer token) and replays once.
final class TokenPlugIn: RequestPlugIn, RequestInterceptor, @unchecked Sendable {
    // unchecked: `sent` is read and written only under `lock`.
    private let wait: TokenWait
    private let lock = Lock()
    /// The credential the last attempt was sent with.
    private var sent: TokenAuthenticator.Credential?

    init(_ wait: TokenWait) {
        self.wait = wait
    }

    var interceptor: (any RequestInterceptor)? { self }

    /// The token the last attempt was sent with (the cache keys on it).
    var credential: String? {
        lock.lock()
        defer { lock.unlock() }
        return sent?.token
    }

    func adapt(_ urlRequest: URLRequest, context: RequestContext, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        wait.credential { [self] result in
            switch result {
            case .success(let credential):
                var authorized = urlRequest
                wait.authorize(&authorized, with: credential)
                lock.lock()
                sent = credential
                lock.unlock()
                completion(.success(authorized))
            case .failure(let error):
                completion(.failure(error))
            }
        }
    }

    func retry(_ error: NetworkError, context: RequestContext, completion: @escaping @Sendable (RetryDecision) -> Void) {
        lock.lock()
        let credential = sent
        lock.unlock()
        guard error.isUnauthorized, let credential, context.retryCount(decidedBy: self) == 0 else {
            completion(.pass)
            return
        }
        wait.unauthorized(sentWith: credential.generation) { result in
            switch result {
            case .success: completion(.retry(after: 0))
            case .failure(let refreshError): completion(.fail(refreshError))
            }
        }
    }

    /// The request ended: a slot lent while it waited comes back now.
    func end() {
        wait.end()
    }
}
