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
/// out, so the refresh never waits for a slot the waiters hold; a token comes back into
/// the queue's limit before it is sent, and a failure ends the request and needs no slot.
///
/// Each wait (the adapt's, then a retry's) is numbered and has one loan, kept here (not an
/// object of its own): while it is out, the queue runs one more operation than its limit
/// (the refresh request, wherever and however the refresh sends it, or other work). To go
/// on, the request re-enters the queue (``giveBack(_:then:)``): it resumes when a slot is
/// free, so the operations that are not parked never exceed the limit, not even right
/// after a refresh that many waited for. ``lend(_:)`` and the give-backs may arrive in
/// either order from any thread: a wait's loan is lent at most once, and once given back
/// (or given back before it was lent, or the request ended) it stays closed; a late call
/// for an earlier wait does nothing.
final class TokenPlugIn: RequestPlugIn, RequestInterceptor, @unchecked Sendable {
    // unchecked: `sent` and the loan's fields are read and written only under `lock`.
    private let authenticator: TokenAuthenticator
    private let service: EasyNetworkService
    private let lock = Lock()
    /// The credential the last attempt was sent with.
    private var sent: TokenAuthenticator.Credential?
    /// The number of the wait in progress (0: none yet); ``end()`` gives its loan back if
    /// the request ends first.
    private var wait = 0
    /// Whether the slot of wait `wait` is lent, whether its loan is closed, and whether it
    /// resumed after re-entering the queue.
    private var lent = false, closed = false, resumed = false
    /// The queue that lends the slot (the request's, when its wait began).
    private weak var lender: NetworkQueue?

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
        let number = newWait()
        authenticator.credential(parked: { [self] in lend(number) }) { [self] result in
            switch result {
            case .success(let credential):
                // Foundation on Linux drops a header value holding CR or LF: a token with a
                // line break is refused here, untrimmed, instead of going out as no token.
                if let token = credential.token, !HeaderFieldCheck.isValidValue(token) {
                    giveBack(number)
                    let source = "the token of the host's TokenAuthenticator"
                    return completion(.failure(HeaderFieldCheck.failure(name: nil, value: token, source: source, url: urlRequest.url)))
                }
                giveBack(number) { [self] in
                    var authorized = urlRequest
                    authenticator.authorize(&authorized, with: credential)
                    lock.lock()
                    sent = credential
                    lock.unlock()
                    completion(.success(authorized))
                }
            case .failure(let error):
                giveBack(number)
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
        let number = newWait()
        authenticator.credential(after: credential.generation, parked: { [self] in lend(number) }) { [self] result in
            switch result {
            case .success:
                giveBack(number) { completion(.retry(after: 0)) }
            case .failure(let refreshError):
                giveBack(number)
                completion(.fail(refreshError))
            }
        }
    }

    /// The request ended (cancelled while waiting, say): a slot lent while it waited
    /// comes back now.
    func end() {
        lock.lock()
        let number = wait
        lock.unlock()
        giveBack(number)
    }

    /// Begins a wait: its number, its loan open and not lent, from the request's queue.
    private func newWait() -> Int {
        let queue = service.lendingQueue
        lock.lock()
        defer { lock.unlock() }
        wait += 1
        lent = false
        closed = false
        resumed = false
        lender = queue
        return wait
    }

    /// Whether wait `number` resumes now: `true` once.
    private func resumes(_ number: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        let first = number == wait && !resumed
        if first {
            resumed = true
        }
        return first
    }

    /// Wait `number` parks: its queue may start one more operation.
    private func lend(_ number: Int) {
        lock.lock()
        let lend = number == wait && !lent && !closed
        if lend {
            lent = true
        }
        let queue = lender
        lock.unlock()
        if lend {
            queue?.lendSlot()
        }
    }

    /// Closes the loan of wait `number`. Without `resume`, the request ends without
    /// sending again: the queue's limit is restored now. With it, the request sends
    /// again: `resume` runs once the queue has a free slot for it (at once when the slot
    /// was never lent). (`resume` is optional so that the optimizer keeps one copy of this
    /// function and of `NetworkQueue.reenter`, not one per closure passed.)
    @inline(never)
    private func giveBack(_ number: Int, then resume: (@Sendable () -> Void)? = nil) {
        lock.lock()
        let wasLent = number == wait && lent && !closed
        if number == wait {
            closed = true
        }
        let queue = lender
        lock.unlock()
        guard wasLent, let queue else {
            resume?()
            return
        }
        if let resume {
            queue.reenter { [self, weak queue] in
                // Called twice when the queue runs it (see `NetworkQueue.reenter`): the
                // first call takes the slot back and resumes.
                if resumes(number) {
                    queue?.returnSlot()
                    resume()
                }
            }
        } else {
            queue.returnSlot()
        }
    }
}
