import EasyNetwork
import EasyNetworkDownloads
import EasyNetworkUploads
import EasyNetworkTesting
import Foundation

/// A 200 MB multipart upload and a 1 GB download against a server in a child process
/// (so the server's buffers do not count), reporting time and this process's peak RSS.
enum TransferBenchmark {
    /// Runs as the child: a loopback server that prints its port and serves until stdin closes.
    static func serve() -> Never {
        guard let server = try? LoopbackServer() else { exit(1) }
        server.route("POST", "/upload") { request in .json(#"{"received": \#(request.body.count)}"#) }
        FileHandle.standardOutput.write(Data("\(server.port)\n".utf8))
        _ = FileHandle.standardInput.readDataToEndOfFile()
        server.stop()
        exit(0)
    }

    struct Upload: BaseAPIRequest {
        let form: MultipartFormData
        var api: String { "/upload" }
        var method: NetworkService.Method { .post }
        var query: NetworkService.QueryType { .json }
        var params: [String: Any]? { nil }
        var headers: [String: String]? { nil }
        var multipartBody: MultipartFormData? { form }
    }

    struct Download: BaseAPIRequest {
        let bytes: Int
        var api: String { "/large/\(bytes)" }
        var method: NetworkService.Method { .get }
        var query: NetworkService.QueryType { .path }
        var params: [String: Any]? { nil }
        var headers: [String: String]? { nil }
        var timeout: TimeInterval? { 600 }
    }

    static func run(uploadBytes: Int, downloadBytes: Int) throws {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe")
        child.arguments = ["--serve"]
        let output = Pipe(), input = Pipe()
        child.standardOutput = output
        child.standardInput = input
        try child.run()
        defer {
            try? input.fileHandleForWriting.close()
            child.waitUntilExit()
        }
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)),
              let base = URL(string: "http://127.0.0.1:\(port)")
        else {
            print("transfer benchmark: the server process did not start")
            return
        }
        let host = HostConfiguration(baseURL: base)
        host.callbackQueue = DispatchQueue(label: "transfer-benchmark")
        host.timeout = 600
        let queue = NetworkQueue()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("easynetwork-benchmark-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        // A file of `uploadBytes`, written in pieces.
        let source = folder.appendingPathComponent("upload.bin")
        _ = FileManager.default.createFile(atPath: source.path, contents: nil)
        let writer = try FileHandle(forWritingTo: source)
        let piece = Data(repeating: 0x5A, count: 1 << 20)
        for _ in 0..<(uploadBytes >> 20) { try writer.write(contentsOf: piece) }
        try writer.close()

        resetPeak()
        let downloadBaseline = memoryKiB().rss
        let downloadStart = Date()
        let destination = folder.appendingPathComponent("download.bin")
        let download = DownloadOperation(request: Download(bytes: downloadBytes), configuration: host, to: destination)
        let downloaded = DispatchSemaphore(value: 0)
        download.completion = { _ in downloaded.signal() }
        queue.addOperation(download)
        downloaded.wait()
        let downloadSeconds = Date().timeIntervalSince(downloadStart)
        let downloadPeak = memoryKiB().peak
        let size = ((try? FileManager.default.attributesOfItem(atPath: destination.path))?[.size] as? NSNumber)?.intValue ?? -1
        print(String(format: "download %d MB to disk: %.2f s, %.0f MB/s, file %d bytes, peak RSS %.1f MiB (%.1f MiB before; target < 50 MB)",
                     downloadBytes >> 20, downloadSeconds, Double(downloadBytes) / 1e6 / downloadSeconds, size, Double(downloadPeak) / 1024, Double(downloadBaseline) / 1024))

        resetPeak()
        let uploadBaseline = memoryKiB().rss
        let uploadStart = Date()
        var form = MultipartFormData()
        form.append(fileAt: source, name: "file")
        let upload = RequestOperation(request: Upload(form: form), configuration: host, responseDecoder: .json)
        let uploaded = DispatchSemaphore(value: 0)
        upload.completion = { _ in uploaded.signal() }
        queue.addOperation(upload)
        uploaded.wait()
        let uploadSeconds = Date().timeIntervalSince(uploadStart)
        let uploadPeak = memoryKiB().peak
        let received = ((try? upload.result?.get()) as? [String: Any])?["received"] as? Int ?? -1
        print(String(format: "upload %d MB (multipart from disk): %.2f s, %.0f MB/s, server received %d bytes, peak RSS %.1f MiB (%.1f MiB before; target < 50 MB)",
                     uploadBytes >> 20, uploadSeconds, Double(uploadBytes) / 1e6 / uploadSeconds, received, Double(uploadPeak) / 1024, Double(uploadBaseline) / 1024))
    }

    /// Resets the kernel's peak-RSS mark (Linux), so each phase reports its own peak.
    static func resetPeak() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }
}
