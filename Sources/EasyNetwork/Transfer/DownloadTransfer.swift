import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One download written to disk as it arrives, resumed from an earlier attempt's bytes
/// when the server allows (`Range` + `If-Range`), started over cleanly when it does not.
///
/// When segmented, a fresh download asks for its first segment (`bytes=0-…`) and the
/// rest in ranges guarded by `If-Range`, which bound what URLSession on Linux can pile up
/// in memory. Any server still works: one that ignores ranges sends the whole body, a 416
/// (an empty file, a server that refuses ranges) starts over once with a plain GET, and
/// one that names no validator for `If-Range` is asked for the whole body after the
/// first range (a later range without a validator could splice two versions); so is one
/// whose ranges give no total (`bytes 0-…/*`), which cannot tell where the file ends.
final class DownloadTransfer: TransferObserver, Sendable {
    private struct State {
        var writer: FileWriter?
        var written: Int64 = 0
        var expected: Int64?
        var failure: NetworkError?
        var restart = false
        var restarted = false
        /// A 416 answered a range, or a range was ignored: this download asks for whole
        /// bodies only.
        var rangesRefused = false
        /// Whether the current request asked for a range.
        var ranged = false
        /// Whether the current response's head arrived (a body cut short needs one).
        var responded = false
        var cancelled = false
        var finished = false
        var task: TransportTask?
        /// Where the current request's bytes start in the file.
        var rangeOffset: Int64 = 0
        /// Where the attempt started (0 for a full download), for reporting.
        var resumedFrom: Int64 = 0
        /// The last byte the current range response carries, when it is a range.
        var segmentEnd: Int64?
        /// The validator to send with later ranges.
        var validator: String?
        /// The size of the next range, and when the current one was asked for.
        var segment: Int64 = 0
        var segmentStarted = Date()
    }

    private let request: URLRequest
    private let partial: PartialDownload
    private let options: DownloadOptions
    private let transport: NetworkService
    private let priority: Float?
    private let progress: @Sendable (_ written: Int64, _ expected: Int64?) -> Void
    private let completion: @Sendable (Result<URL, NetworkError>) -> Void
    private let state = Protected(State())

    init(
        request: URLRequest,
        destination: URL,
        options: DownloadOptions,
        transport: NetworkService,
        priority: Float?,
        progress: @escaping @Sendable (Int64, Int64?) -> Void,
        completion: @escaping @Sendable (Result<URL, NetworkError>) -> Void
    ) {
        self.request = request
        partial = PartialDownload(destination: destination)
        self.options = options
        self.transport = transport
        self.priority = priority
        self.progress = progress
        self.completion = completion
    }

    /// The offset the last attempt asked the server to resume from (0 for a full download).
    var resumedFrom: Int64 {
        state.read { $0.resumedFrom }
    }

    func start() {
        let destination = partial.destination
        if options.existing == .fail, FileManager.default.fileExists(atPath: destination.path) {
            end(.failure(NetworkError(kind: .invalidRequest, message: "'\(destination.path)' exists already", url: request.url)))
            return
        }
        do {
            try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            end(.failure(NetworkError(kind: .invalidRequest, message: "cannot create the folder for '\(destination.path)': \(error.localizedDescription)", url: request.url, underlyingError: error)))
            return
        }
        var offset: Int64 = 0
        var validator: String?
        if options.resumable, let url = request.url, let point = partial.resumePoint(for: url),
           let ifRange = Self.ifRangeValidator(etag: point.validator.etag, lastModified: point.validator.lastModified) {
            offset = point.offset
            validator = ifRange
        } else {
            partial.discard()
        }
        state.write {
            $0.resumedFrom = offset
            $0.validator = validator
        }
        requestRange(from: offset)
    }

    /// Sends the request for the bytes from `offset`: a range (one segment long when
    /// segmented; from a later offset only with a validator for `If-Range`), else the
    /// whole body.
    private func requestRange(from offset: Int64) {
        var attempt = request
        let (validator, segment, refused): (String?, Int64?, Bool) = state.write { state in
            guard let initial = options.segmentSize.map(Int64.init), !state.rangesRefused else {
                return (state.validator, nil, state.rangesRefused)
            }
            let elapsed = Date().timeIntervalSince(state.segmentStarted)
            if state.segment == 0 {
                state.segment = initial
            } else if elapsed > 0.2 {
                state.segment = min(state.segment * 2, initial * 32)
            } else if elapsed < 0.05 {
                state.segment = max(state.segment / 2, initial)
            }
            state.segmentStarted = Date()
            return (state.validator, state.segment, false)
        }
        // A range from 0 has nothing to splice onto; a later one needs `If-Range`.
        let ranged = !refused && (offset > 0 ? validator != nil : segment != nil)
        if ranged {
            attempt.setValue(segment.map { "bytes=\(offset)-\(offset + $0 - 1)" } ?? "bytes=\(offset)-", forHTTPHeaderField: "Range")
            if offset > 0, let validator {
                attempt.setValue(validator, forHTTPHeaderField: "If-Range")
            }
            // Offsets count the resource's own bytes, never those of a compressed form.
            attempt.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        } else if attempt.value(forHTTPHeaderField: "Accept-Encoding") == nil {
            // The file holds the resource's bytes; its length and a later resume need them.
            attempt.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        }
        state.write {
            $0.ranged = ranged
            $0.rangeOffset = ranged ? offset : 0
            $0.segmentEnd = nil
            $0.responded = false
        }
        guard let task = transport.streamingTask(with: attempt, priority: priority, observer: self) else {
            end(.failure(.cancelled(url: request.url)))
            return
        }
        let cancelNow: Bool = state.write { state in
            state.task = task
            return state.cancelled
        }
        if cancelNow { task.cancel() }
    }

    func cancel() {
        let task: TransportTask? = state.write { state in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }

    // MARK: TransferObserver

    func transferDidReceive(_ response: HTTPURLResponse) -> Bool {
        let (offset, ranged): (Int64, Bool) = state.write { state in
            state.responded = true
            return (state.rangeOffset, state.ranged)
        }
        let status = response.statusCode
        let range = status == 206 ? Self.contentRange(response) : nil
        let isRange = status == 206 && range?.start == offset
        if ranged && (status == 416 || (status == 206 && !isRange)) {
            // The server refuses ranges (or answers another one): start over, once, whole.
            state.write { state in
                if state.restarted {
                    state.failure = NetworkError(kind: .unacceptableStatus, url: response.url ?? request.url, response: response)
                } else {
                    state.restart = true
                    state.rangesRefused = true
                }
            }
            return false
        }
        if ranged, !isRange, (200..<300).contains(status) {
            // The range or its validator was ignored: the whole body follows, and no
            // further ranges (a changing validator would otherwise loop).
            state.write { $0.rangesRefused = true }
        }
        if isRange, range?.total == nil {
            // `bytes a-b/*`: ranges cannot tell where the file ends; the rest comes whole.
            state.write { $0.rangesRefused = true }
        }
        guard (200..<300).contains(status), status != 206 || isRange else {
            state.write {
                $0.failure = NetworkError(kind: .unacceptableStatus, url: response.url ?? request.url, response: response)
            }
            return false
        }
        let coded = Self.isContentCoded(response)
        let total: Int64? = isRange
            ? range?.total
            : (response.expectedContentLength >= 0 && !coded ? response.expectedContentLength : nil)
        let etag = response.value(forHTTPHeaderField: "ETag")
        let lastModified = response.value(forHTTPHeaderField: "Last-Modified")
        let validator = Self.ifRangeValidator(etag: etag, lastModified: lastModified)
        do {
            // Bytes from the start of the file, or appended to those on disk.
            let fresh = offset == 0 || !isRange
            let writer = try FileWriter(url: partial.dataURL, appending: !fresh)
            if options.resumable, let url = request.url, fresh || state.read({ $0.validator == nil }), !coded {
                partial.save(PartialDownload.Validator(url: url.absoluteString, etag: etag, lastModified: lastModified, totalLength: total))
            }
            state.write { state in
                state.writer = writer
                state.written = fresh ? 0 : offset
                state.expected = total
                state.segmentEnd = isRange ? range?.end : nil
                if fresh { state.validator = validator }
            }
            progress(fresh ? 0 : offset, total)
            return true
        } catch {
            state.write { $0.failure = Self.fileError(error, url: request.url) }
            return false
        }
    }

    func transferDidReceive(_ data: Data) {
        let (writer, failed): (FileWriter?, Bool) = state.read { ($0.writer, $0.failure != nil) }
        guard let writer, !failed else { return }
        do {
            try writer.write(data)
            let (written, expected) = state.write { state -> (Int64, Int64?) in
                state.written += Int64(data.count)
                return (state.written, state.expected)
            }
            progress(written, expected)
        } catch {
            state.write { $0.failure = Self.fileError(error, url: request.url) }
            cancel()
        }
    }

    func transferDidComplete(_ error: (any Error)?) {
        let snapshot: State = state.write { state in
            state.writer?.close()
            state.writer = nil
            state.task = nil
            return state
        }
        if snapshot.restart, !snapshot.restarted, !snapshot.cancelled {
            partial.discard()
            state.write {
                $0.restart = false
                $0.restarted = true
            }
            start()
            return
        }
        if let failure = snapshot.failure {
            end(.failure(failure))
            return
        }
        if let error {
            if snapshot.cancelled || (error as? URLError)?.code == .cancelled {
                end(.failure(.cancelled(url: request.url)))
            } else {
                // A body cut short (libcurl's "transfer closed", -1 on Linux) is a connection loss.
                let declared = snapshot.responded ? snapshot.expected : nil
                end(.failure(.transport(TruncatedBody.classify(error, declared: declared, received: snapshot.written), url: request.url)))
            }
            return
        }
        if let last = snapshot.segmentEnd, snapshot.expected.map({ last + 1 < $0 }) ?? true {
            // One range done (of a known or an unknown total); ask for the next.
            guard snapshot.written == last + 1 else {
                end(.failure(NetworkError(kind: .transport, message: "a range ended early", url: request.url, underlyingError: URLError(.networkConnectionLost))))
                return
            }
            requestRange(from: last + 1)
            return
        }
        if let expected = snapshot.expected, snapshot.written != expected {
            end(.failure(NetworkError(
                kind: .transport,
                message: "the download ended after \(snapshot.written) of \(expected) bytes",
                url: request.url,
                underlyingError: URLError(.networkConnectionLost)
            )))
            return
        }
        do {
            let destination = partial.destination
            if FileManager.default.fileExists(atPath: destination.path) {
                try FileManager.default.removeItem(at: destination)
            }
            try FileManager.default.moveItem(at: partial.dataURL, to: destination)
            partial.discard()
            progress(snapshot.written, snapshot.written)
            end(.success(destination))
        } catch {
            end(.failure(Self.fileError(error, url: request.url)))
        }
    }

    private func end(_ result: Result<URL, NetworkError>) {
        let first: Bool = state.write { state in
            defer { state.finished = true }
            return !state.finished
        }
        guard first else { return }
        if case .failure = result, !options.resumable {
            partial.discard()
        }
        completion(result)
    }

    // MARK: Helpers

    /// `Content-Range: bytes 100-199/1000` → (100, 199, 1000); the total is `nil` for `*`.
    static func contentRange(_ response: HTTPURLResponse) -> (start: Int64, end: Int64, total: Int64?)? {
        guard let value = response.value(forHTTPHeaderField: "Content-Range"),
              let spec = value.split(separator: " ").last
        else { return nil }
        let parts = spec.split(separator: "/")
        let bounds = parts.first?.split(separator: "-") ?? []
        guard bounds.count == 2, let start = Int64(bounds[0]), let end = Int64(bounds[1]) else { return nil }
        return (start, end, parts.count == 2 ? Int64(parts[1]) : nil)
    }

    /// What `If-Range` may carry: a strong ETag, else Last-Modified (a weak ETag must
    /// not be used there); `nil` when neither is usable.
    static func ifRangeValidator(etag: String?, lastModified: String?) -> String? {
        if let etag, !etag.hasPrefix("W/") { return etag }
        return lastModified
    }

    /// Whether the body came with a content coding (its bytes are not the resource's).
    static func isContentCoded(_ response: HTTPURLResponse) -> Bool {
        guard let coding = response.value(forHTTPHeaderField: "Content-Encoding")?.trimmingCharacters(in: .whitespaces) else { return false }
        return !coding.isEmpty && coding.lowercased() != "identity"
    }

    static func fileError(_ error: any Error, url: URL?) -> NetworkError {
        NetworkError(kind: .transport, message: "cannot write the download: \(error.localizedDescription)", url: url, underlyingError: error)
    }
}
