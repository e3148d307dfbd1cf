#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How a request body written to a file is handed to `URLSession`.
///
/// On Apple platforms: the file itself (`uploadTask(fromFile:)`). On Linux never the
/// file: swift-corelibs-foundation reads a file body asynchronously, pauses libcurl
/// while it waits for the read, and unpauses it when the read completes, with a `try!`
/// that stops the process (`EasyHandle.swift:484`, libcurl error 43) when the task was
/// cancelled or timed out in between. There a body up to ``inMemoryLimit`` goes from
/// memory, with its `Content-Length`; a larger one from an `InputStream`, which
/// corelibs reads without pausing and sends with `Transfer-Encoding: chunked`.
enum UploadBody {
    /// The file, read by `URLSession` (Apple platforms).
    case file(URL)
    /// The file's bytes.
    case data(Data)
    /// The request's `httpBodyStream`, `length` bytes long, sent chunked.
    case stream(length: Int64)

    /// The largest body sent from memory on Linux (8 MiB).
    static let inMemoryLimit: Int64 = 8 << 20

    /// How to send `file` with `request`: the request to send (a streamed body replaces
    /// `Content-Length` with chunked framing) and the body; `nil` when the file cannot be read.
    @inline(__always)  // one caller
    static func prepare(_ file: URL, for request: URLRequest) -> (request: URLRequest, body: UploadBody)? {
        #if canImport(FoundationNetworking)
        // The size from the file's end (no attribute dictionary to search); a file that
        // opens for reading here is readable for the stream below too.
        guard let handle = try? FileHandle(forReadingFrom: file) else { return nil }
        let end = try? handle.seekToEnd()
        try? handle.close()
        guard let end else { return nil }
        let size = Int64(clamping: end)
        if size <= inMemoryLimit {
            guard let data = try? Data(contentsOf: file) else { return nil }
            return (request, .data(data))
        }
        guard let stream = InputStream(url: file) else { return nil }
        var streamed = request
        // corelibs sends a stream chunked; a Content-Length beside it would be malformed.
        streamed.setValue(nil, forHTTPHeaderField: "Content-Length")
        streamed.httpBodyStream = stream
        return (streamed, .stream(length: size))
        #else
        return (request, .file(file))
        #endif
    }

    /// A delegate-driven task sending `request` with this body.
    func task(in session: URLSession, with request: URLRequest) -> URLSessionTask {
        switch self {
        case .file(let url):
            return session.uploadTask(with: request, fromFile: url)
        case .data(let data):
            return session.uploadTask(with: request, from: data)
        case .stream:
            return session.dataTask(with: request)
        }
    }

    /// `progress` with the expected total filled in where `URLSession` does not know it
    /// (a streamed body).
    func reporting(_ progress: (@Sendable (Int64, Int64) -> Void)?) -> (@Sendable (Int64, Int64) -> Void)? {
        guard case .stream(let length) = self, let progress else { return progress }
        return { sent, expected in progress(sent, expected > 0 ? expected : length) }
    }
}
