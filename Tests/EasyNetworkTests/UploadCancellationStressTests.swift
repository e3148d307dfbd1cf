@testable import EasyNetwork
@testable import EasyNetworkUploads
import EasyNetworkTesting
import Foundation
import XCTest

/// A multipart upload of one file, with its own timeout.
private struct StressUpload: BaseAPIRequest {
    let form: MultipartFormData
    let timeout: TimeInterval?
    var api: String { "/sink" }
    var method: NetworkService.Method { .post }
    var query: NetworkService.QueryType { .json }
    var params: [String: Any]? { nil }
    var headers: [String: String]? { nil }
    var multipartBody: MultipartFormData? { form }
}

/// Uploads cut off at random moments, by a cancel or by the request's deadline, while
/// their bodies are on the way (issue 12, item 15: on Linux a file body handed to
/// URLSession could stop the process inside FoundationNetworking when the task ended
/// while libcurl waited for the next piece of the file).
final class UploadCancellationStressTests: ServerTestCase {
    func testHundredsOfUploadsCutOffAtRandomMomentsEachEndOnceAndTheProcessSurvives() throws {
        server.route("POST", "/sink") { request in .json(object: ["received": request.body.count]) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("easynetwork-stress-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Bodies up to 8 MiB go to URLSession from memory on Linux, larger ones as a stream.
        let files = try [300_000, 1_000_000, 2_500_000, 300_000, 1_000_000, 9_000_000].map { size -> URL in
            let url = folder.appendingPathComponent("body-\(size).bin")
            try Data(repeating: UInt8(truncatingIfNeeded: size), count: size).write(to: url)
            return url
        }

        let temporaryFiles = {
            Set(((try? FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path)) ?? [])
                .filter { $0.hasPrefix(MultipartBodyWriter.namePrefix) })
        }
        let before = temporaryFiles()
        let host = makeHost()
        let total = 300
        let inFlight = DispatchSemaphore(value: 8)
        let group = DispatchGroup()
        let callbacks = (0..<total).map { _ in Collector<Result<Data, NetworkError>>() }
        let started = Date()
        for index in 0..<total {
            if index % 50 == 0 { server.resetRecords() }  // the server keeps bodies it recorded
            inFlight.wait()
            group.enter()
            var form = MultipartFormData()
            form.append(fileAt: files[index % files.count], name: "file")
            // Half are cut off by their deadline, half by a cancel; a few get through.
            let byDeadline = index % 2 == 0
            let cutOff = Double.random(in: 0.001...0.040)
            let request = StressUpload(form: form, timeout: byDeadline ? cutOff : 10)
            let report: @Sendable (Result<Data, NetworkError>) -> Void = { result in
                callbacks[index].append(result)
                // A second callback is counted below; leaving twice would stop the process.
                guard callbacks[index].count == 1 else { return }
                inFlight.signal()
                group.leave()
            }
            let cancel: @Sendable () -> Void
            if index % 4 < 2 {
                // Without progress: the session's completion handler path.
                let service = EasyNetworkService(host)
                service.perform(request, transform: { $0.data }, completion: report)
                cancel = { service.cancel() }
            } else {
                // With progress: the delegate-driven path.
                let op = RequestOperation(request: request, configuration: host, responseDecoder: .data)
                op.onUploadProgress = { _ in }
                op.completion = { report($0) }
                NetworkQueue.shared.addOperation(op)
                cancel = { op.cancel() }
            }
            if !byDeadline {
                DispatchQueue.global().asyncAfter(deadline: .now() + cutOff, execute: cancel)
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 60), .success, "every upload calls back")
        // A late second callback would land here.
        Thread.sleep(forTimeInterval: 0.2)

        var succeeded = 0, cancelled = 0, timedOut = 0
        for (index, collector) in callbacks.enumerated() {
            let results = collector.values
            XCTAssertEqual(results.count, 1, "upload \(index) calls back exactly once")
            switch results.first {
            case .success?:
                succeeded += 1
            case .failure(let error)?:
                if error.isCancelled {
                    cancelled += 1
                } else if error.isTimeout {
                    timedOut += 1
                } else {
                    XCTFail("upload \(index) ended with an unexpected error: \(error)")
                }
            case nil:
                break
            }
        }
        XCTAssertEqual(succeeded + cancelled + timedOut, total)
        XCTAssertGreaterThan(cancelled + timedOut, total / 4, "many uploads are cut off")
        // The temporary folder is shared with other test processes: a body file of theirs
        // may be there now, but only one nobody removes stays.
        var leftover = temporaryFiles().subtracting(before)
        let settled = Date() + 5
        while !leftover.isEmpty, Date() < settled {
            Thread.sleep(forTimeInterval: 0.1)
            leftover.formIntersection(temporaryFiles())
        }
        XCTAssertEqual(leftover, [], "every temporary body file is removed")
        print("upload stress: \(succeeded) succeeded, \(cancelled) cancelled, \(timedOut) timed out in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
    }
}
