import EasyNetwork
import EasyNetworkDownloads
import EasyNetworkOrchestration
import EasyNetworkTesting
import Foundation
import XCTest

/// An SDK built on EasyNetwork lives inside someone else's app (issue 12, item 12): its
/// notification name cannot collide with the app's, its `Progress` objects never join
/// the app's progress tree, and its callback properties can be set from any thread.
final class EmbeddingHygieneTests: ServerTestCase {
    /// The name is spelled out here, not taken from the library, so this test says what
    /// an observer in the host app sees.
    private let prefixedName = Notification.Name("com.easynetwork.didPerformUnauthorizedOperation")
    private let unprefixedName = Notification.Name("DidPerformUnauthorizedOperation")
    private let queue = NetworkQueue(maxConcurrentOperationCount: 4)

    func testA401PostsOnlyTheReverseDNSName() {
        server.route("GET", "/secret") { _ in .json(#"{"error": "who are you"}"#, status: 401) }
        let host = makeHost()
        let prefixed = Collector<Notification>()
        let unprefixed = Collector<Notification>()
        let observers = [
            NotificationCenter.default.addObserver(forName: prefixedName, object: host, queue: nil) { prefixed.append($0) },
            NotificationCenter.default.addObserver(forName: unprefixedName, object: host, queue: nil) { unprefixed.append($0) },
        ]
        defer { observers.forEach(NotificationCenter.default.removeObserver) }

        let result = send(TestRequest("/secret"), host: host)
        callbackQueue.sync {}
        XCTAssertEqual(failure(of: result)?.statusCode, 401)
        XCTAssertEqual(prefixed.count, 1, "a 401 must post \(prefixedName.rawValue)")
        XCTAssertEqual((prefixed.values.first?.userInfo?["error"] as? NetworkError)?.statusCode, 401)
        XCTAssertEqual(unprefixed.count, 0, "a global, unprefixed name can collide with the host app's own")
    }

    func testTheConstantCarriesTheReverseDNSName() {
        XCTAssertEqual(HostConfiguration.unauthorizedOperationNotification, prefixedName)
    }

    /// The host app made its own progress current (as for a "download all" screen): our
    /// objects made meanwhile must not become its children, nor take its pending units.
    func testOurProgressObjectsNeverJoinTheHostAppsCurrentProgress() throws {
        let appProgress = Progress(totalUnitCount: 10)
        appProgress.becomeCurrent(withPendingUnitCount: 4)
        let request = RequestOperation(request: TestRequest("/never"), configuration: makeHost(), responseDecoder: .data)
        let upload = request.uploadProgress
        let batch = RequestBatch(operations: [
            RequestOperation(request: TestRequest("/never"), configuration: makeHost(), responseDecoder: .data),
        ])
        let download = DownloadOperation(
            request: TestRequest("/never"),
            configuration: makeHost(),
            to: FileManager.default.temporaryDirectory.appendingPathComponent("hygiene-\(UUID().uuidString)")
        )
        appProgress.resignCurrent()

        // No child was added while it was current: resigning completes the pending units.
        XCTAssertEqual(appProgress.totalUnitCount, 10)
        XCTAssertEqual(appProgress.completedUnitCount, 4, "one of our Progress objects became a child of the app's")

        // Our objects run to the end: the app's progress does not move.
        for progress in [upload, batch.progress, download.progress] {
            progress.totalUnitCount = 1
            progress.completedUnitCount = 1
        }
        XCTAssertEqual(appProgress.completedUnitCount, 4)
        XCTAssertEqual(appProgress.fractionCompleted, 0.4, accuracy: 0.0001)
    }

    /// Callback properties set and read from many threads at once while the operations
    /// run: no torn closure, and the closure set last is the one called, once. (Run
    /// under ThreadSanitizer for the full check; the types being `@Sendable` is what makes
    /// the compiler reject a user's racing closure.)
    func testCallbackPropertiesCanBeSetAndReadFromAnyThread() {
        server.route("GET", "/item") { _ in .json(#"{"id": 1}"#) }
        let host = makeHost()
        let operation = RequestOperation(request: TestRequest("/item"), configuration: host, responseDecoder: .data)
        let batch = RequestBatch(operations: [
            RequestOperation(request: TestRequest("/item"), configuration: host, responseDecoder: .data),
        ])
        let download = DownloadOperation(
            request: TestRequest("/item"),
            configuration: host,
            to: FileManager.default.temporaryDirectory.appendingPathComponent("hygiene-\(UUID().uuidString)")
        )
        let calls = Collector<String>()
        DispatchQueue.concurrentPerform(iterations: 400) { index in
            if index.isMultiple(of: 2) {
                operation.success = { _ in calls.append("stale success \(index)") }
                operation.failure = { _ in calls.append("stale failure \(index)") }
                operation.completion = { _ in calls.append("stale completion \(index)") }
                operation.onCachedValue = { _ in calls.append("stale cached \(index)") }
                operation.onUploadProgress = { _ in calls.append("stale upload \(index)") }
                batch.onResult = { _, _ in calls.append("stale result \(index)") }
                batch.onProgress = { _, _ in calls.append("stale progress \(index)") }
                batch.completion = { _ in calls.append("stale batch \(index)") }
                download.onProgress = { _ in calls.append("stale download progress \(index)") }
                download.completion = { _ in calls.append("stale download \(index)") }
            } else {
                _ = (operation.success, operation.failure, operation.completion, operation.onCachedValue, operation.onUploadProgress)
                _ = (batch.onResult, batch.onProgress, batch.completion)
                _ = (download.onProgress, download.completion)
            }
        }
        let done = expectation(description: "all three completed")
        done.expectedFulfillmentCount = 3
        DispatchQueue.global().async { [queue] in
            operation.success = nil
            operation.failure = nil
            operation.onCachedValue = nil
            operation.onUploadProgress = nil
            operation.completion = { _ in calls.append("completion"); done.fulfill() }
            batch.onResult = nil
            batch.onProgress = nil
            batch.completion = { _ in calls.append("batch"); done.fulfill() }
            download.onProgress = nil
            download.completion = { _ in calls.append("download"); done.fulfill() }
            queue.addOperation(operation)
            batch.start(on: queue)
            queue.addOperation(download)
        }
        wait(for: [done], timeout: 10)
        callbackQueue.sync {}
        XCTAssertEqual(calls.values.sorted(), ["batch", "completion", "download"])
    }

    /// The pattern the *Requests, parameters and results* article gives for UI code: the callback is `@Sendable`, the main
    /// queue is the default callback queue, and main-actor state is reached through
    /// `MainActor.assumeIsolated`.
    func testUICodeReachesMainActorStateThroughAssumeIsolated() {
        server.route("GET", "/item") { _ in .json(#"{"id": 1}"#) }
        let host = HostConfiguration(baseURL: server.baseURL)
        let screen = MainActor.assumeIsolated { Screen() }
        let done = expectation(description: "shown")
        let operation = RequestOperation(request: TestRequest("/item"), configuration: host, responseDecoder: .data)
        operation.completion = { [screen] result in
            MainActor.assumeIsolated {
                screen.text = (try? result.get()).map { String(decoding: $0, as: UTF8.self) } ?? "failed"
            }
            done.fulfill()
        }
        queue.addOperation(operation)
        wait(for: [done], timeout: 10)
        XCTAssertEqual(MainActor.assumeIsolated { screen.text }, #"{"id": 1}"#)
    }
}

/// Main-actor state, as a view controller holds it.
@MainActor
private final class Screen {
    var text = ""
}
