import EasyNetwork
import EasyNetworkDownloads  // DownloadOperation (an opt-in product)
import EasyNetworkPlugins
import EasyNetworkOrchestration
import EasyNetworkTesting
import Foundation

/// `swift run EasyNetworkDemo [--base-url URL]`: the seed's flow through EasyNetwork,
/// against a fake backend on 127.0.0.1 (or a real server with the same endpoints).
@main
struct EasyNetworkDemo {
    static func main() async {
        var server: LoopbackServer?
        let arguments = CommandLine.arguments
        if let index = arguments.firstIndex(of: "--base-url"), index + 1 < arguments.count {
            guard HostConfiguration.baseURL(arguments[index + 1]) else {
                print("Not a usable base URL: \(arguments[index + 1])")
                exit(2)
            }
        } else {
            do {
                let started = try DemoBackend.start()
                server = started
                HostConfiguration.baseURL(started.baseURL.absoluteString)
            } catch {
                print("Cannot start the demo backend: \(error)")
                exit(1)
            }
        }
        print("EasyNetwork demo against \(HostConfiguration.shared.baseURL?.absoluteString ?? "?")\n")

        let unauthorized = NotificationCenter.default.addObserver(
            forName: HostConfiguration.unauthorizedOperationNotification, object: HostConfiguration.shared, queue: nil
        ) { _ in print("   (notification: com.easynetwork.didPerformUnauthorizedOperation — time to sign in again)") }

        await signIn()
        await listItems()
        await profile()
        await failing(path: "/private", title: "4. A 401 is a failure plus a notification")
        await failing(path: "/broken", title: "5. A 500 carries the server's message")
        await cancellation()
        await envelopeBackend()
        await tokensAndRetries()
        await chainAndBatch()
        await transfers()

        NotificationCenter.default.removeObserver(unauthorized)
        server?.stop()
        print("\nDone.")
    }

    static func signIn() async {
        print("1. Sign in with a ServiceOperation subclass and a ResponseMapper")
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let op = SignInOperation(userName: "ana", password: "secret")
            op.success = { item in print("   signed in as \(item.userName), token \(item.token)"); done.resume() }
            op.failure = { error in print("   failed: \(error.localizedDescription)"); done.resume() }
            NetworkQueue.shared.addOperation(op)
        }
    }

    static func listItems() async {
        print("2. A list through ArrayResponseMapper")
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let op = RequestOperation(request: GetRequest(api: "/items")) { json in
                try ArrayResponseMapper<ListItem>.process(json, mapper: ListItemMapper.process)
            }
            op.success = { items in print("   \(items.count) items: " + items.map(\.title).joined(separator: ", ")) }
            op.failure = { error in print("   failed: \(error.localizedDescription)") }
            op.completion = { _ in done.resume() }
            NetworkQueue.shared.addOperation(op)
        }
    }

    static func profile() async {
        print("3. A Decodable struct with the generic RequestOperation")
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let op = RequestOperation(request: GetRequest(api: "/profile"), decoding: Profile.self)
            op.completion = { result in
                switch result {
                case .success(let profile): print("   \(profile.name) <\(profile.email)>")
                case .failure(let error): print("   failed: \(error.localizedDescription)")
                }
                done.resume()
            }
            NetworkQueue.shared.addOperation(op)
        }
    }

    static func failing(path: String, title: String) async {
        print(title)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let op = RequestOperation<Any?>(request: GetRequest(api: path)) { $0 }
            op.failure = { error in
                print("   status \(error.statusCode.map(String.init) ?? "-"): \(error.localizedDescription)")
            }
            op.completion = { _ in done.resume() }
            NetworkQueue.shared.addOperation(op)
        }
    }

    static func envelopeBackend() async {
        print("7. An envelope backend ({code, msg, data}), typed requests and async/await")
        guard let baseURL = HostConfiguration.shared.baseURL else { return }
        let host = HostConfiguration(baseURL: baseURL)
        host.envelope = .codeEquals(0)
        host.errorHandler = { request, error in
            print("   (host error handler: \(request.api) failed, code \(error.businessCode ?? "-"), trace \(error.traceId ?? "-"))")
        }
        do {
            let profile = try await NetworkQueue.shared.send(GetProfileV2(), configuration: host)
            print("   payload unwrapped: \(profile.name) <\(profile.email)>")
            try await NetworkQueue.shared.send(PlaceOrder(order: .init(sku: "TEA-1", quantity: 2)), configuration: host)
            print("   order placed")
        } catch let error as NetworkError {
            print("   business error \(error.businessCode ?? "-"): \(error.localizedDescription)")
        } catch {
            print("   unexpected: \(error)")
        }
    }

    static func tokensAndRetries() async {
        print("8. An expired token refreshed once, a flaky endpoint retried, a logger at info level")
        guard let baseURL = HostConfiguration.shared.baseURL else { return }
        let host = HostConfiguration(baseURL: baseURL)
        host.authenticator = TokenAuthenticator(token: "stale-token") { [weak host] in
            guard let host else { throw CancellationError() }
            print("   (refreshing the token)")
            return try await NetworkQueue.shared.send(RefreshTokenRequest(), configuration: host).token
        }
        host.retryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: 0.2)
        host.interceptors = [LoggingInterceptor.console(level: .info)]
        do {
            let me = try await NetworkQueue.shared.send(GetMe(), configuration: host)
            print("   signed in again without asking: \(me.name)")
            let news = try await NetworkQueue.shared.send(GetNews(), configuration: host)
            print("   news after retries: \(news.joined(separator: ", "))")
        } catch {
            print("   failed: \(error.localizedDescription)")
        }
    }

    static func chainAndBatch() async {
        print("9. A chain (each step built from the last) and a batch (results as they arrive)")
        do {
            let outcome = try await RequestChain(GetCart())
                .then { cart in GetQuote(cartId: cart.cartId) }
                .run(on: NetworkQueue.shared)
            print("   chain: cart → quote total \(outcome.last?.total ?? 0) after \(outcome.results.count) steps")
        } catch {
            print("   chain failed: \(error.localizedDescription)")
        }
        let batch = RequestBatch(requests: (1...6).map { GetThumb(id: $0) }, policy: .settleAll)
        batch.onResult = { index, result in
            switch result {
            case .success(let thumb): print("   batch: #\(index + 1) arrived (\(thumb.bytes) bytes)")
            case .failure(let error): print("   batch: #\(index + 1) failed (\(error.statusCode ?? 0))")
            }
        }
        let results = await batch.run(on: NetworkQueue.shared)
        print("   batch done: \(results.filter { (try? $0.get()) != nil }.count) of \(results.count) succeeded")
    }

    static func transfers() async {
        print("10. A download to disk and a multipart upload, with progress bars")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("easynetwork-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("asset.bin")
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let op = DownloadOperation(request: GetAsset(bytes: 30_000_000), to: file)
            op.onProgress = { progress in bar("download", progress.fractionCompleted) }
            op.completion = { result in
                print("")
                switch result {
                case .success(let url): print("   saved \(url.lastPathComponent)")
                case .failure(let error): print("   download failed: \(error.localizedDescription)")
                }
                done.resume()
            }
            NetworkQueue.shared.addOperation(op)
        }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let op = RequestOperation(request: UploadPhoto(file: file), responseDecoder: UploadPhoto(file: file).responseDecoder)
            op.onUploadProgress = { progress in bar("upload  ", progress.fractionCompleted) }
            op.completion = { result in
                print("")
                switch result {
                case .success(let reply): print("   the server received \(reply["received"] ?? 0) bytes in \(reply["parts"] ?? 0) form parts")
                case .failure(let error): print("   upload failed: \(error.localizedDescription)")
                }
                done.resume()
            }
            NetworkQueue.shared.addOperation(op)
        }
    }

    /// Draws a progress bar on one terminal line.
    static func bar(_ label: String, _ fraction: Double) {
        let width = 30
        let filled = Int((fraction * Double(width)).rounded(.down))
        let text = "   \(label) [" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "] "
            + String(format: "%3.0f%%", fraction * 100)
        FileHandle.standardOutput.write(Data(("\r" + text).utf8))
    }

    static func cancellation() async {
        print("6. Cancelling a slow request")
        let started = Date()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let op = RequestOperation<Any?>(request: GetRequest(api: "/slow")) { $0 }
            op.completion = { result in
                if case .failure(let error) = result, error.isCancelled {
                    print(String(format: "   cancelled after %.2f s, reported once", Date().timeIntervalSince(started)))
                } else {
                    print("   unexpected: \(result)")
                }
                done.resume()
            }
            NetworkQueue.shared.addOperation(op)
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { op.cancel() }
        }
    }
}
