#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Bearer tokens for a host, refreshed once no matter how many requests fail at once.
///
/// Every request of the host (unless its `BaseAPIRequest/requiresAuthentication` is
/// `false`, like the sign-in itself) is sent with the current token. When one comes back
/// unauthorized (HTTP 401, or a business code the envelope lists as unauthorized):
///
/// - if it was sent with an older token than the current one, it is replayed with the
///   current token, without a refresh;
/// - otherwise one refresh starts (or the running one is joined); every request that
///   waits on it is replayed with the new token when it succeeds, and fails with a
///   `NetworkError` of kind `authentication` when it fails, in which case
///   `HostConfiguration/unauthorizedOperationNotification` is posted once;
/// - a request is replayed after a refresh at most once: a second unauthorized answer
///   with a fresh token is its result;
/// - at most `maxRefreshes` refreshes run within `refreshWindow` seconds (default 3
///   in 30 s): past that, requests fail without refreshing, so a server that always
///   answers 401 cannot cause a loop. `maxRefreshes` counts from 1 to 1,000; a window
///   longer than a year (`.infinity`) is a year, and one that is not positive (or NaN)
///   is the default 30 s;
/// - after a failed refresh, requests still holding the token it tried to replace
///   (with no token yet: every request) fail at once with the same error for
///   `refreshWindow` seconds, or until ``setToken(_:)`` (a new sign-in) gives a new one;
///   the limit above counts the refreshes made for a missing token too;
/// - a token holding a carriage return, a line feed or NUL (read from a file with its
///   trailing newline, say) is never trimmed nor sent: the request fails with a
///   `NetworkError` of kind `invalidRequest` whose `HeaderFieldError` says what is wrong;
/// - a refresh that has not called back within `refreshTimeout` seconds (default 60)
///   fails like any refresh: every waiter gets a `NetworkError` of kind
///   `authentication` whose `NetworkError/isTimeout` is `true`; the `async` form's
///   task is cancelled (and with it a refresh request it sent), a late answer is
///   ignored.
///
/// A request waiting for a refresh gives its `NetworkQueue` slot back while it
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
public final class TokenAuthenticator: @unchecked Sendable {
    // unchecked: every `var` below, and the ring `refreshTimes` points at, is read and written only under `lock`.
    /// Starts a refresh; call the completion once with the new token or an error.
    public typealias Refresh = @Sendable (_ completion: @escaping @Sendable (Result<String, any Error>) -> Void) -> Void
    /// Puts a token on a request; the default sets `Authorization: Bearer <token>`.
    public typealias Apply = @Sendable (_ token: String, _ request: inout URLRequest) -> Void

    /// A token and the refresh that produced it (0 for the initial one). A tuple: a
    /// struct would bring value witnesses of its own into the binary.
    typealias Credential = (token: String?, generation: Int)

    // No initial values where declared, and `Optional<T>` not `T?` (which starts as `nil`
    // by itself): in a public class each compiles a function; the initializer sets them.
    private let lock: Lock
    private var currentToken: Optional<String>
    private var generation: Int
    private var refreshing: Bool
    private var waiters: [@Sendable (Result<Credential, NetworkError>) -> Void]
    /// When the last `maxRefreshes` refreshes started, in seconds of ``uptime`` (a ring;
    /// `-infinity` for none): only those can be within the window.
    /// (Memory of its own, freed in `deinit`, written under `lock`: an array would compile
    /// a copy-on-write path for its element type.)
    private let refreshTimes: UnsafeMutableBufferPointer<TimeInterval>
    /// How many refreshes started: the next one's place in the ring is this modulo its
    /// size, and the running one (while `refreshing`) is number `refreshCount - 1`.
    private var refreshCount: Int
    /// How to cancel the running refresh of the `async` form, called when it times out.
    private var cancelRefresh: Optional<@Sendable () -> Void>
    /// The last failed refresh: the generation it tried to replace, when, and why.
    private var failure: Optional<(generation: Int, at: TimeInterval, error: NetworkError)>
    /// Weak, so the authenticator never keeps its host alive.
    private weak var owner: Optional<HostConfiguration>
    private var clock: @Sendable () -> TimeInterval
    private let refresh: Refresh?
    /// The `async` form's refresh: starts it (in a task) and returns how to cancel it.
    private let start: Start?

    /// Starts a refresh and returns how to cancel it (the `async` form, made in the
    /// caller's module).
    @usableFromInline
    typealias Start = @Sendable (_ completion: @escaping @Sendable (Result<String, any Error>) -> Void) -> @Sendable () -> Void
    private let apply: Apply
    private let maxRefreshes: Int
    private let refreshWindow: TimeInterval
    private let refreshTimeout: TimeInterval
    /// The host whose notification a failed refresh posts; set when assigned to a host.
    var host: HostConfiguration? {
        get { lock.lock(); defer { lock.unlock() }; return owner }
        set { lock.lock(); owner = newValue; lock.unlock() }
    }

    /// The default `refreshTimeout`: 60 s, the default timeout of one request.
    @_alwaysEmitIntoClient  // a constant: no global, addressor or getter in the module
    public static var defaultRefreshTimeout: TimeInterval { 60 }

    @inline(never)  // one copy for both forms
    @usableFromInline
    init(token: String?, maxRefreshes: Int, refreshWindow: TimeInterval, refreshTimeout: TimeInterval, apply: @escaping Apply, refresh: Refresh?, start: Start?) {
        lock = Lock()
        currentToken = token
        generation = 0
        refreshing = false
        waiters = []
        refreshCount = 0
        cancelRefresh = nil
        failure = nil
        owner = nil
        clock = { ProcessInfo.processInfo.systemUptime }
        self.refresh = refresh
        self.start = start
        self.apply = apply
        // At least 1 and at most 1,000: the ring keeps a time per refresh.
        self.maxRefreshes = min(max(1, maxRefreshes), 1_000)
        refreshTimes = .allocate(capacity: self.maxRefreshes)
        refreshTimes.initialize(repeating: -.infinity)
        // Both durations: not positive (or NaN), the default; `.infinity` and the like, a year.
        self.refreshWindow = refreshWindow > 0 ? min(refreshWindow, 365 * 86_400) : 30
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
        apply: @escaping Apply = TokenAuthenticator.bearer,
        refresh: @escaping Refresh
    ) {
        self.init(token: token, maxRefreshes: maxRefreshes, refreshWindow: refreshWindow, refreshTimeout: refreshTimeout, apply: apply, refresh: refresh, start: nil)
    }

    /// An authenticator whose refresh is an `async` function; a refresh still running
    /// after `refreshTimeout` seconds is cancelled and fails with a timeout.
    @_alwaysEmitIntoClient  // its task's code only in the programs that use this form
    public convenience init(
        token: String?,
        maxRefreshes: Int = 3,
        refreshWindow: TimeInterval = 30,
        refreshTimeout: TimeInterval = TokenAuthenticator.defaultRefreshTimeout,
        refresh: @escaping @Sendable () async throws -> String
    ) {
        self.init(token: token, maxRefreshes: maxRefreshes, refreshWindow: refreshWindow, refreshTimeout: refreshTimeout, apply: Self.bearer, refresh: nil) { completion in
            let task = Task {
                do { completion(.success(try await refresh())) } catch { completion(.failure(error)) }
            }
            return { task.cancel() }
        }
    }

    /// The default `apply`: `Authorization: Bearer <token>`.
    @usableFromInline
    static func bearer(_ token: String, _ request: inout URLRequest) {
        request.setValue("Bearer " + token, forHTTPHeaderField: "Authorization")
    }

    deinit {
        refreshTimes.deallocate()
    }

    /// Seconds on a monotonic clock (the system uptime); tests may replace it.
    var uptime: @Sendable () -> TimeInterval {
        get { lock.lock(); defer { lock.unlock() }; return clock }
        set { lock.lock(); clock = newValue; lock.unlock() }
    }

    /// The current token.
    public var token: String? {
        lock.lock()
        defer { lock.unlock() }
        return currentToken
    }

    /// Replaces the token (after a sign-in, say); requests sent with the old one are
    /// replayed with this one when they come back unauthorized.
    public func setToken(_ token: String?) {
        lock.lock()
        currentToken = token
        generation += 1
        lock.unlock()
    }

    /// The credential to send with: for the first attempt (`sent` is `nil`) the current
    /// token, waiting for a running refresh first, or making one when there is no token
    /// yet; after an attempt sent with generation `sent` came back unauthorized, a newer
    /// token at once, or the one refresh (waited for or started). Either refresh is within
    /// the window's limit, and fails at once after a failed one for the same token.
    /// `parked` runs, before the wait, when the caller must wait (its completion may run
    /// before or after `parked` returns).
    func credential(after sent: Int? = nil, parked: @Sendable () -> Void = {}, _ completion: @escaping @Sendable (Result<Credential, NetworkError>) -> Void) {
        var answer: Result<Credential, NetworkError>?
        var limited = false, begin = false
        lock.lock()
        let joins = refreshing  // a refresh runs: wait for it
        if !joins {
            // The token the caller holds: the one it was sent with, or (a first attempt)
            // the current one. A refresh replaces it when it was refused (no newer one
            // came since) or when there is none.
            let held = sent ?? generation
            if currentToken == nil || (sent != nil && generation <= held) {
                // The monotonic clock, read under the lock that guards it. A first attempt
                // without a token is limited as a refused token is: the last refresh's
                // failure for the window, at most `maxRefreshes` in it.
                let now = clock()
                if let failure, failure.generation == held, now - failure.at < refreshWindow {
                    answer = .failure(failure.error)
                } else {
                    var recent = 0
                    for time in refreshTimes where now - time <= refreshWindow {
                        recent += 1
                    }
                    limited = recent >= maxRefreshes
                    begin = !limited
                }
            } else {
                answer = .success((token: currentToken, generation: generation))
            }
        }
        if joins || begin {
            Self.append(completion, to: &waiters)
        }
        // Marked running in the step that decided it: a caller right after this one waits
        // for it, even if this one is descheduled before the refresh starts.
        let number = refreshCount
        if begin {
            refreshing = true
            refreshTimes[number % maxRefreshes] = clock()  // the clock, under its lock
            refreshCount += 1
        }
        lock.unlock()
        if limited {
            answer = .failure(Self.failure("the token was refreshed " + String(maxRefreshes) + " times in " + String(Int(refreshWindow)) + " s; not refreshing again", nil))
        }
        if let answer {
            return completion(answer)
        }
        parked()
        if begin {
            startRefresh(number)
        }
    }

    /// Appends `waiter` to `waiters`, compiled without optimization: the standard library's
    /// own `append` is called, not a copy specialized for the waiters' closure type.
    @_optimize(none)
    private static func append(_ waiter: @escaping @Sendable (Result<Credential, NetworkError>) -> Void, to waiters: inout [@Sendable (Result<Credential, NetworkError>) -> Void]) {
        waiters.append(waiter)
    }

    /// An `authentication` failure saying `words`, never counted as unauthorized (made
    /// in one place: each `NetworkError` initializer call passes every default).
    @inline(never)
    private static func failure(_ words: String, _ underlying: (any Error)?) -> NetworkError {
        NetworkError(kind: .authentication, message: words, underlyingError: underlying, isUnauthorized: false)
    }

    /// The failure notification's `userInfo`, `["error": error]`, built without
    /// optimization: the standard library's dictionary initializer is called, not a copy
    /// specialized and compiled here (with the timeout's `URLError` below, about 1 KB and
    /// 5 functions). String keys made `[AnyHashable: Any]` by the runtime's cast (always
    /// succeeds), as the core does: an `AnyHashable` literal compiles its own hashing.
    @_optimize(none)
    private static func userInfo(_ error: NetworkError) -> [AnyHashable: Any]? {
        let info: [String: Any] = ["error": error]
        return info as Any as? [AnyHashable: Any]
    }

    /// Puts `credential` on `request`.
    func authorize(_ request: inout URLRequest, with credential: Credential) {
        if let token = credential.token {
            apply(token, &request)
        }
    }

    /// Runs refresh `number`, which the caller marked running (with its waiter queued),
    /// with its timeout.
    private func startRefresh(_ number: Int) {
        // The first of the refresh's answer and its timeout counts; `complete` ignores the
        // other (and a second answer) by the refresh's number.
        let timer = DeadlineScheduler.shared.schedule(at: .now() + refreshTimeout) { [weak self] in
            self?.complete(number, nil)
        }
        let done: @Sendable (Result<String, any Error>) -> Void = { [weak self] result in
            DeadlineScheduler.shared.cancel(timer)
            self?.complete(number, result)
        }
        guard let start else {
            refresh?(done)
            return
        }
        let cancel = start(done)
        lock.lock()
        let running = refreshing && refreshCount == number + 1
        if running {
            cancelRefresh = cancel
        }
        lock.unlock()
        if !running {
            cancel()  // timed out already (or answered: cancelling a finished task does nothing)
        }
    }

    /// Ends refresh `number` with `result` (`nil`: it timed out), unless it ended already.
    private func complete(_ number: Int, _ result: Result<String, any Error>?) {
        var token: String?
        var error: NetworkError?
        switch result {
        case .success(let value)?:
            token = value
        case .failure(let refreshError)?:
            error = Self.failure("the token could not be refreshed: " + refreshError.localizedDescription, refreshError)
        case nil:
            error = Self.failure("the token refresh did not finish within " + String(refreshTimeout) + " s", URLError(.timedOut, userInfo: [String: Any]()))  // not the default `[:]`: a literal
        }
        lock.lock()
        guard refreshing, refreshCount == number + 1 else {
            lock.unlock()
            return
        }
        refreshing = false
        let waiting = waiters
        waiters.removeAll()
        let cancel = cancelRefresh
        cancelRefresh = nil
        if let error {
            failure = (generation, clock(), error)
        } else {
            currentToken = token
            generation += 1
            failure = nil
        }
        let credential = (token: token, generation: generation)
        lock.unlock()
        if result == nil {
            cancel?()
        }
        if let error, let host {
            QueueHop.async(host.callbackQueue) {
                NotificationCenter.default.post(name: HostConfiguration.unauthorizedOperationNotification, object: host, userInfo: Self.userInfo(error))
            }
        }
        for waiter in waiting {
            if let error {
                waiter(.failure(error))
            } else {
                waiter(.success(credential))
            }
        }
    }
}
