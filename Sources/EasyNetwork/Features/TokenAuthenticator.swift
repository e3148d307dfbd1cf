import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Bearer tokens for a host, refreshed once no matter how many requests fail at once.
///
/// Every request of the host (unless its ``BaseAPIRequest/requiresAuthentication`` is
/// `false`, like the sign-in itself) is sent with the current token. When one comes back
/// unauthorized (HTTP 401, or a business code the envelope lists as unauthorized):
///
/// - if it was sent with an older token than the current one, it is replayed with the
///   current token, without a refresh;
/// - otherwise one refresh starts (or the running one is joined); every request that
///   waits on it is replayed with the new token when it succeeds, and fails with a
///   ``NetworkError`` of kind `authentication` when it fails, in which case
///   ``HostConfiguration/unauthorizedOperationNotification`` is posted once;
/// - a request is replayed after a refresh at most once: a second unauthorized answer
///   with a fresh token is its result;
/// - at most `maxRefreshes` refreshes run within `refreshWindow` seconds (default 3
///   in 30 s): past that, requests fail without refreshing, so a server that always
///   answers 401 cannot cause a loop;
/// - after a failed refresh, requests still holding the token it tried to replace
///   fail at once with the same error for `refreshWindow` seconds, or until
///   ``setToken(_:)`` (a new sign-in) gives a new one;
/// - a refresh that has not called back within `refreshTimeout` seconds (default 60)
///   fails like any refresh: every waiter gets a ``NetworkError`` of kind
///   `authentication` whose ``NetworkError/isTimeout`` is `true`; the `async` form's
///   task is cancelled (and with it a refresh request it sent), a late answer is
///   ignored.
///
/// A request waiting for a refresh gives its ``NetworkQueue`` slot back while it
/// waits, so the refresh may be sent with `queue.send` on the same queue (or any
/// other), however wide the queue and however many requests wait; to replay, it takes
/// a slot again, ahead of the requests not yet started. `refreshWindow` is
/// measured on the system's monotonic clock: changing the device's date or time
/// neither extends nor ends it.
///
/// ```swift
/// host.authenticator = TokenAuthenticator(token: savedToken) { done in
///     refreshSession { result in done(result) }     // Result<String, Error>
/// }
/// ```
///
/// The host keeps its authenticator: a refresh that calls the same host must capture
/// it weakly (`{ [weak host] in … }`), or the two keep each other alive.
public final class TokenAuthenticator: Sendable {
    /// Starts a refresh; call the completion once with the new token or an error.
    public typealias Refresh = @Sendable (_ completion: @escaping @Sendable (Result<String, any Error>) -> Void) -> Void
    /// Puts a token on a request; the default sets `Authorization: Bearer <token>`.
    public typealias Apply = @Sendable (_ token: String, _ request: inout URLRequest) -> Void

    /// A token and the refresh that produced it (0 for the initial one).
    struct Credential: Sendable {
        let token: String?
        let generation: Int
    }

    private struct State {
        var token: String?
        var generation = 0
        var refreshing = false
        var waiters: [@Sendable (Result<Credential, NetworkError>) -> Void] = []
        /// When refreshes started, in seconds of ``uptime``.
        var refreshTimes: [TimeInterval] = []
        /// The last failed refresh: the generation it tried to replace, when, and why.
        var failure: (generation: Int, at: TimeInterval, error: NetworkError)?
    }

    /// Starts a refresh and returns how to cancel it, if it can be.
    private typealias Start = @Sendable (_ completion: @escaping @Sendable (Result<String, any Error>) -> Void) -> (@Sendable () -> Void)?

    private let state: Protected<State>
    private let owner = Protected(WeakHost())
    private let start: Start
    private let apply: Apply
    private let maxRefreshes: Int
    private let refreshWindow: TimeInterval
    private let refreshTimeout: TimeInterval
    private let clock = Protected<@Sendable () -> TimeInterval>({ ProcessInfo.processInfo.systemUptime })
    /// The host whose notification a failed refresh posts; set when assigned to a host.
    var host: HostConfiguration? {
        get { owner.read { $0.host } }
        set { owner.write { $0.host = newValue } }
    }

    /// A weak reference, so the authenticator never keeps its host alive.
    private struct WeakHost {
        weak var host: HostConfiguration?
    }

    /// The default `refreshTimeout`: 60 s, the default timeout of one request.
    public static let defaultRefreshTimeout: TimeInterval = 60

    private init(token: String?, maxRefreshes: Int, refreshWindow: TimeInterval, refreshTimeout: TimeInterval, apply: @escaping Apply, start: @escaping Start) {
        state = Protected(State(token: token))
        self.start = start
        self.apply = apply
        self.maxRefreshes = max(1, maxRefreshes)
        self.refreshWindow = refreshWindow
        // Not positive (or NaN): the default; `.infinity` and the like: a year.
        self.refreshTimeout = refreshTimeout > 0 ? min(refreshTimeout, 365 * 86_400) : Self.defaultRefreshTimeout
    }

    /// An authenticator starting with `token` (or none: the first request refreshes).
    /// `refresh` must call its completion once; if it has not within `refreshTimeout`
    /// seconds, the refresh fails with a timeout.
    public convenience init(
        token: String?,
        maxRefreshes: Int = 3,
        refreshWindow: TimeInterval = 30,
        refreshTimeout: TimeInterval = TokenAuthenticator.defaultRefreshTimeout,
        apply: @escaping Apply = { token, request in request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") },
        refresh: @escaping Refresh
    ) {
        self.init(token: token, maxRefreshes: maxRefreshes, refreshWindow: refreshWindow, refreshTimeout: refreshTimeout, apply: apply) { completion in
            refresh(completion)
            return nil
        }
    }

    /// An authenticator whose refresh is an `async` function; a refresh still running
    /// after `refreshTimeout` seconds is cancelled and fails with a timeout.
    public convenience init(
        token: String?,
        maxRefreshes: Int = 3,
        refreshWindow: TimeInterval = 30,
        refreshTimeout: TimeInterval = TokenAuthenticator.defaultRefreshTimeout,
        refresh: @escaping @Sendable () async throws -> String
    ) {
        self.init(
            token: token,
            maxRefreshes: maxRefreshes,
            refreshWindow: refreshWindow,
            refreshTimeout: refreshTimeout,
            apply: { token, request in request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        ) { completion in
            let task = Task {
                do { completion(.success(try await refresh())) } catch { completion(.failure(error)) }
            }
            return { task.cancel() }
        }
    }

    /// Seconds on a monotonic clock (the system uptime); tests may replace it.
    var uptime: @Sendable () -> TimeInterval {
        get { clock.read { $0 } }
        set { clock.write { $0 = newValue } }
    }

    /// The current token.
    public var token: String? {
        state.read { $0.token }
    }

    /// Replaces the token (after a sign-in, say); requests sent with the old one are
    /// replayed with this one when they come back unauthorized.
    public func setToken(_ token: String?) {
        state.write {
            $0.token = token
            $0.generation += 1
        }
    }

    /// The credential to send with, waiting for a running refresh first, or making one
    /// when there is no token yet. `parked` runs, before the wait, when the caller must
    /// wait (its completion may run before or after `parked` returns).
    func credential(parked: @Sendable () -> Void = {}, _ completion: @escaping @Sendable (Result<Credential, NetworkError>) -> Void) {
        enum Next { case ready(Credential), wait, refresh }
        let next: Next = state.write { state in
            if state.refreshing {
                state.waiters.append(completion)
                return .wait
            }
            if state.token == nil {
                state.waiters.append(completion)
                return .refresh
            }
            return .ready(Credential(token: state.token, generation: state.generation))
        }
        switch next {
        case .ready(let credential): completion(.success(credential))
        case .wait: parked()
        case .refresh:
            parked()
            startRefresh()
        }
    }

    /// Called when a request sent with `generation` came back unauthorized: replays at
    /// once with a newer token, or waits for (or starts) the one refresh; `parked` runs
    /// as in ``credential(parked:_:)``.
    func unauthorized(sentWith generation: Int, parked: @Sendable () -> Void = {}, _ completion: @escaping @Sendable (Result<Credential, NetworkError>) -> Void) {
        enum Next { case ready(Credential), wait, refresh, limited, failed(NetworkError) }
        let now = uptime()
        let next: Next = state.write { state in
            if state.generation > generation, state.token != nil, !state.refreshing {
                return .ready(Credential(token: state.token, generation: state.generation))
            }
            if state.refreshing {
                state.waiters.append(completion)
                return .wait
            }
            if let failure = state.failure, failure.generation == generation, now - failure.at < refreshWindow {
                return .failed(failure.error)
            }
            state.refreshTimes.removeAll { now - $0 > refreshWindow }
            if state.refreshTimes.count >= maxRefreshes {
                return .limited
            }
            state.waiters.append(completion)
            return .refresh
        }
        switch next {
        case .ready(let credential): completion(.success(credential))
        case .wait: parked()
        case .refresh:
            parked()
            startRefresh()
        case .failed(let error): completion(.failure(error))
        case .limited:
            completion(.failure(NetworkError(
                kind: .authentication,
                message: "the token was refreshed \(maxRefreshes) times in \(Int(refreshWindow)) s; not refreshing again",
                isUnauthorized: false
            )))
        }
    }

    /// Puts `credential` on `request`.
    func authorize(_ request: inout URLRequest, with credential: Credential) {
        if let token = credential.token {
            apply(token, &request)
        }
    }

    /// Runs the refresh unless one runs, with its timeout; the caller has queued its waiter.
    private func startRefresh() {
        let now = uptime()
        let begin: Bool = state.write { state in
            guard !state.refreshing else { return false }
            state.refreshing = true
            state.refreshTimes.append(now)
            return true
        }
        guard begin else { return }
        // The first of the refresh's answer and its timeout counts; the other is ignored.
        let current = Protected(RefreshAttempt())
        let timeout = refreshTimeout
        let cancel = start { [weak self] result in
            // A refresh that calls back twice counts once.
            guard current.write({ $0.end() }) else { return }
            current.read { $0.timer }.map(DeadlineScheduler.shared.cancel)
            self?.complete(result.mapError { error in
                NetworkError(
                    kind: .authentication,
                    message: "the token could not be refreshed: \(error.localizedDescription)",
                    underlyingError: error,
                    isUnauthorized: false
                )
            })
        }
        current.write { attempt in
            guard !attempt.done else { return }
            attempt.cancel = cancel
            attempt.timer = DeadlineScheduler.shared.schedule(at: .now() + timeout) { [weak self] in
                guard current.write({ $0.end() }) else { return }
                current.write { attempt in defer { attempt.cancel = nil }; return attempt.cancel }?()
                self?.complete(.failure(NetworkError(
                    kind: .authentication,
                    message: "the token refresh did not finish within \(timeout) s",
                    underlyingError: URLError(.timedOut),
                    isUnauthorized: false
                )))
            }
        }
    }

    /// One refresh: whether its answer or its timeout came, how to cancel it, its timer.
    private struct RefreshAttempt {
        var done = false
        var cancel: (@Sendable () -> Void)?
        var timer: Int?

        /// Ends the attempt; `false` when it had ended already.
        mutating func end() -> Bool {
            defer { done = true }
            return !done
        }
    }

    private func complete(_ result: Result<String, NetworkError>) {
        let now = uptime()
        let (waiters, outcome): ([@Sendable (Result<Credential, NetworkError>) -> Void], Result<Credential, NetworkError>) = state.write { state in
            state.refreshing = false
            let waiters = state.waiters
            state.waiters.removeAll()
            switch result {
            case .success(let token):
                state.token = token
                state.generation += 1
                state.failure = nil
                return (waiters, .success(Credential(token: token, generation: state.generation)))
            case .failure(let failure):
                state.failure = (state.generation, now, failure)
                return (waiters, .failure(failure))
            }
        }
        if case .failure(let error) = outcome, let host {
            let queue = host.callbackQueue
            queue.async {
                NotificationCenter.default.post(
                    name: HostConfiguration.unauthorizedOperationNotification,
                    object: host,
                    userInfo: ["error": error]
                )
            }
        }
        waiters.forEach { $0(outcome) }
    }
}
