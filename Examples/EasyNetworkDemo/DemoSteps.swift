import EasyNetwork
import EasyNetworkEnvelopes
import EasyNetworkDownloads  // DownloadOperation (an opt-in product)
import EasyNetworkOrchestration
import EasyNetworkPlugins
import EasyNetworkRetry  // host.retryPolicy (an opt-in product)
import Foundation

/// The demo's steps, in order. Each prints what happened and returns whether it ended as
/// expected (an expected failure, such as step 4's 401, counts as expected).
enum DemoSteps {
    /// Runs every step; returns the titles of those that did not end as expected.
    static func runAll() async -> [String] {
        let unauthorized = Flag()
        let observer = NotificationCenter.default.addObserver(
            forName: HostConfiguration.unauthorizedOperationNotification, object: HostConfiguration.shared, queue: nil
        ) { _ in
            unauthorized.set()
            say("   (notification: com.easynetwork.didPerformUnauthorizedOperation — time to sign in again)")
        }
        defer { NotificationCenter.default.removeObserver(observer) }

        var failed: [String] = []
        func step(_ title: String, _ body: () async -> Bool) async {
            say(title)
            if await !body() {
                say("   ✗ not as expected")
                failed.append(String(title.prefix { $0 != "." }))
            }
        }
        await step("1. Sign in with a ServiceOperation subclass and a ResponseMapper", signIn)
        await step("2. A list through ArrayResponseMapper", listItems)
        await step("3. A Decodable struct with the generic RequestOperation", profile)
        await step("4. A 401 is a failure plus a notification") {
            let status = await failing(path: "/private", expectedStatus: 401)
            return status && unauthorized.isSet
        }
        await step("5. A 500 carries the server's message") { await failing(path: "/broken", expectedStatus: 500) }
        await step("6. Cancelling a slow request", cancellation)
        await step("7. An envelope backend ({code, msg, data}), typed requests and async/await", envelopeBackend)
        await step("8. An expired token refreshed once, a flaky endpoint retried, a logger at info level", tokensAndRetries)
        await step("9. A chain (each step built from the last) and a batch (results as they arrive)", chainAndBatch)
        await step("10. A download to disk and a multipart upload, with progress bars", transfers)
        return failed
    }

    /// Runs `operation` on the shared queue and waits until it calls back.
    private static func run<Output: Sendable>(_ operation: RequestOperation<Output>) async -> Result<Output, NetworkError> {
        await withCheckedContinuation { (done: CheckedContinuation<Result<Output, NetworkError>, Never>) in
            operation.completion = { result in done.resume(returning: result) }
            NetworkQueue.shared.addOperation(operation)
        }
    }

    static func signIn() async -> Bool {
        await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
            let op = SignInOperation(userName: "ana", password: "secret")
            op.success = { item in say("   signed in as \(item.userName), token \(item.token)"); done.resume(returning: true) }
            op.failure = { error in say("   " + describe(error)); done.resume(returning: false) }
            NetworkQueue.shared.addOperation(op)
        }
    }

    static func listItems() async -> Bool {
        let op = RequestOperation(request: GetRequest(api: "/items")) { json in
            try ArrayResponseMapper<ListItem>.process(json, mapper: ListItemMapper.process)
        }
        switch await run(op) {
        case .success(let items):
            say("   \(items.count) items: " + items.map(\.title).joined(separator: ", "))
            return !items.isEmpty
        case .failure(let error):
            say("   " + describe(error))
            return false
        }
    }

    static func profile() async -> Bool {
        switch await run(RequestOperation(request: GetRequest(api: "/profile"), decoding: Profile.self)) {
        case .success(let profile):
            say("   \(profile.name) <\(profile.email)>")
            return true
        case .failure(let error):
            say("   " + describe(error))
            return false
        }
    }

    /// A request that must fail with `expectedStatus`.
    static func failing(path: String, expectedStatus: Int) async -> Bool {
        switch await run(RequestOperation(request: GetRequest(api: path), responseDecoder: .data)) {
        case .success:
            say("   succeeded, but a \(expectedStatus) was expected")
            return false
        case .failure(let error):
            say("   " + describe(error))
            return error.kind == .unacceptableStatus && error.statusCode == expectedStatus
        }
    }

    static func cancellation() async -> Bool {
        let started = Date()
        let op = RequestOperation(request: GetRequest(api: "/slow"), responseDecoder: .data)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { op.cancel() }
        switch await run(op) {
        case .failure(let error) where error.isCancelled:
            say(String(format: "   cancelled after %.2f s, reported once", Date().timeIntervalSince(started)))
            return true
        case .failure(let error):
            say("   not cancelled: " + describe(error))
        case .success(let body):
            say("   not cancelled: \(body.count) bytes arrived")
        }
        return false
    }

    static func envelopeBackend() async -> Bool {
        guard let baseURL = HostConfiguration.shared.baseURL else { return false }
        let host = HostConfiguration(baseURL: baseURL)
        host.envelope = .codeEquals(0)
        host.errorHandler = { request, error in
            say("   (host error handler: \(request.api) failed, business code \(error.businessCode ?? "none"), trace \(error.traceId ?? "none"))")
        }
        do {
            let profile = try await NetworkQueue.shared.send(GetProfileV2(), configuration: host)
            say("   payload unwrapped: \(profile.name) <\(profile.email)>")
        } catch {
            say("   " + describe(error))
            return false
        }
        do {
            try await NetworkQueue.shared.send(PlaceOrder(order: .init(sku: "TEA-1", quantity: 2)), configuration: host)
            say("   the order was placed, but a business failure was expected")
            return false
        } catch {
            say("   " + describe(error))
            return (error as? NetworkError)?.kind == .business
        }
    }

    static func tokensAndRetries() async -> Bool {
        guard let baseURL = HostConfiguration.shared.baseURL else { return false }
        let host = HostConfiguration(baseURL: baseURL)
        host.authenticator = TokenAuthenticator(token: "stale-token") { [weak host] in
            guard let host else { throw CancellationError() }
            say("   (refreshing the token)")
            return try await NetworkQueue.shared.send(RefreshTokenRequest(), configuration: host).token
        }
        host.retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: 0.2)
        host.interceptors = [LoggingInterceptor(level: .info) { _, line in say("   [log] " + line) }]
        do {
            let me = try await NetworkQueue.shared.send(GetMe(), configuration: host)
            say("   signed in again without asking: \(me.name)")
            let news = try await NetworkQueue.shared.send(GetNews(), configuration: host)
            say("   news after retries: \(news.joined(separator: ", "))")
            return true
        } catch {
            say("   " + describe(error))
            return false
        }
    }

    static func chainAndBatch() async -> Bool {
        var asExpected = true
        do {
            let outcome = try await RequestChain(GetCart())
                .then { cart in GetQuote(cartId: cart.cartId) }
                .run(on: NetworkQueue.shared)
            say("   chain: cart → quote total \(outcome.last?.total ?? 0) after \(outcome.results.count) steps")
        } catch let error as ChainError {
            say("   chain failed at step \(error.step + 1): " + describe(error.error))
            asExpected = false
        } catch {
            say("   chain: " + describe(error))
            asExpected = false
        }
        let batch = RequestBatch(requests: (1...6).map { GetThumb(id: $0) }, policy: .settleAll)
        batch.onResult = { index, result in
            switch result {
            case .success(let thumb): say("   batch: #\(index + 1) arrived (\(thumb.bytes) bytes)")
            case .failure(let error): say("   batch: #\(index + 1) failed, " + describe(error))
            }
        }
        let results = await batch.run(on: NetworkQueue.shared)
        let succeeded = results.indices.filter { (try? results[$0].get()) != nil }
        say("   batch done: \(succeeded.count) of \(results.count) succeeded (#4 is expected to fail with 404)")
        return asExpected && succeeded == [0, 1, 2, 4, 5]
    }

    static func transfers() async -> Bool {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("easynetwork-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("asset.bin")
        let downloaded = await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
            let op = DownloadOperation(request: GetAsset(bytes: 30_000_000), configuration: .shared, to: file)
            op.onProgress = { progress in bar("download", progress.fractionCompleted) }
            op.completion = { result in
                say("")
                switch result {
                case .success(let url): say("   saved \(url.lastPathComponent)"); done.resume(returning: true)
                case .failure(let error): say("   download: " + describe(error)); done.resume(returning: false)
                }
            }
            NetworkQueue.shared.addOperation(op)
        }
        guard downloaded else {
            say("   upload skipped: it sends the downloaded file")
            return false
        }
        let upload = UploadPhoto(file: file)
        let op = RequestOperation(request: upload, responseDecoder: upload.responseDecoder)
        op.onUploadProgress = { progress in bar("upload  ", progress.fractionCompleted) }
        let result = await run(op)
        say("")
        switch result {
        case .success(let reply):
            say("   the server received \(reply["received"] ?? 0) bytes in \(reply["parts"] ?? 0) form parts")
            return reply["parts"] == 2
        case .failure(let error):
            say("   upload: " + describe(error))
            return false
        }
    }
}

/// A flag set from any thread (the notification observer's).
final class Flag: @unchecked Sendable {  // unchecked: `value` is read and written under `lock`
    private let lock = NSLock()
    private var value = false

    func set() {
        lock.lock()
        value = true
        lock.unlock()
    }

    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}
