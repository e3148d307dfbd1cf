// The package's shared test helpers (Tests/EasyNetworkTestSupport), visible to every file
// of this target.
@_exported import EasyNetworkTestSupport
import EasyNetwork
import EasyNetworkDownloads
import Foundation
import XCTest

/// A base for download tests: a fresh loopback server, a queue, and a temporary folder
/// removed after each test.
class DownloadTestCase: ServerTestCase {
    var folder: URL!
    let queue = NetworkQueue()

    override func setUpWithError() throws {
        try super.setUpWithError()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("easynetwork-downloads-\(UUID().uuidString)")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
        super.tearDown()
    }

    /// Downloads `path` to `name` in `folder` and waits for the result; `cancelWhen`, if
    /// given, is polled with the partial file's URL and cancels the download once true.
    func download(_ path: String, to name: String, options: DownloadOptions = DownloadOptions(), progress: Collector<Double>? = nil, cancelWhen: ((URL) -> Bool)? = nil) -> (DownloadOperation, Result<URL, NetworkError>?) {
        let destination = folder.appendingPathComponent(name)
        let op = DownloadOperation(request: TestRequest(path), configuration: makeHost(), to: destination, options: options)
        let done = expectation(description: "download")
        op.onProgress = { progress?.append($0.fractionCompleted) }
        op.completion = { _ in done.fulfill() }
        queue.addOperation(op)
        if let cancelWhen {
            let partial = folder.appendingPathComponent(name + ".partial")
            let deadline = Date().addingTimeInterval(10)
            while !cancelWhen(partial) && Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
            op.cancel()
        }
        wait(for: [done], timeout: 20)
        return (op, op.result)
    }

    /// The size of the file at `url` (0 when there is none).
    func size(_ url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.intValue ?? 0
    }
}
