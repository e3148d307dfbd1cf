#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
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
final class DownloadTransfer: TransferObserver, @unchecked Sendable {
    // unchecked: every `var` below is read and written only under its operation's lock
    // (`owner.lockState()`: one of the core's pool, recursive; no lock object per transfer).
    // Nothing under it calls out: no callback, no closure, no other lock.
    private var writer: FileWriter?
    private var failure: NetworkError?
    /// Whether a 416 (or another range than asked) asked to start over (`restart`), which
    /// happens once (`restarted`); whether this download asks for whole bodies only
    /// (`rangesRefused`: a 416 answered a range, or a range was ignored); whether the current
    /// request asked for a range (`ranged`) and its response head arrived (`responded`: a
    /// body cut short needs one); and whether it was cancelled or ended. One field (one
    /// entry in the class's metadata, not seven).
    private var flags = (restart: false, restarted: false, rangesRefused: false, ranged: false, responded: false, cancelled: false, finished: false)
    private var task: TransportTask?
    /// The bytes in the file and those expected in all (`nil`: unknown), the body bytes
    /// received by this attempt, where the current request's bytes start in the file, the
    /// last byte the current range response carries (when it is a range), and the size of
    /// the next range. One field (one entry in the class's metadata, not six).
    private var bytes = (written: Int64(0), expected: Int64?.none, received: 0, rangeOffset: Int64(0), segmentEnd: Int64?.none, segment: Int64(0))
    /// The validator to send with later ranges.
    private var validator: String?
    /// When the current range was asked for.
    private var segmentStarted = Date(timeIntervalSinceReferenceDate: 0)  // read once a segment was asked for
    /// The last response head, when the first one arrived, and the body bytes written.
    private var response: HTTPURLResponse?
    private var firstByteAt: Date?
    /// Called once, then dropped.
    private var completion: (@Sendable (TransportOutcome) -> Void)?

    private let request: URLRequest
    private let destination: URL
    private let options: DownloadOptions
    private let transport: NetworkService
    private let activity: any TransferActivity
    /// Who hears the progress and the offset resumed from. Held strongly: the operation
    /// keeps no transfer, so this makes no cycle that outlives the attempt (the exchange
    /// lets go of the attempt's task as it arrives, the session of the transfer as its
    /// task completes).
    private let owner: DownloadOperation

    /// A transfer of `request`'s body to `destination`; `activity` (the attempt's clock)
    /// hears every response head and piece of body, `owner` the progress, and `completion`
    /// gets, once, the last response, the bytes written and the error (`nil`: every byte is
    /// in `.partial`).
    init(
        request: URLRequest, destination: URL, options: DownloadOptions, transport: NetworkService,
        activity: any TransferActivity, owner: DownloadOperation, completion: @escaping @Sendable (TransportOutcome) -> Void
    ) {
        self.request = request
        self.destination = destination
        self.options = options
        self.transport = transport
        self.activity = activity
        self.owner = owner
        self.completion = completion
    }

    @_optimize(size)  // once per attempt, never per byte
    func start() {
        let files = FileManager.default
        if options.existing == .fail, files.fileExists(atPath: destination.path) {
            end(problem(.invalidRequest, "'" + destination.path + "' exists already"))
            return
        }
        do {
            try files.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            end(problem(.invalidRequest, "cannot create the folder for '" + destination.path + "': " + error.localizedDescription, underlying: error))
            return
        }
        var offset: Int64 = 0
        var ifRange: String?
        if options.resumable, let url = request.url, let point = Self.resumePoint(destination, for: url) {
            offset = point.offset
            ifRange = point.ifRange
        } else {
            Self.discardPartial(destination)
        }
        owner.resumed(from: offset)
        owner.lockState()
        validator = ifRange
        owner.unlockState()
        requestRange(from: offset)
    }

    /// Sends the request for the bytes from `offset`: a range (one segment long when
    /// segmented; from a later offset only with a validator for `If-Range`), else the
    /// whole body.
    @_optimize(size)  // once per attempt, never per byte
    private func requestRange(from offset: Int64) {
        var attempt = request
        owner.lockState()
        let ifRange = validator
        var length: Int64?
        // Read as 64 KB to 1 GB (a setter keeps any value): at most 32 GB a range, so the
        // arithmetic below cannot overflow, and never an empty or negative range.
        if let initial = options.segmentSize.map({ Int64(min(max($0, 64 * 1024), 1 << 30)) }), !flags.rangesRefused {
            let now = Date()
            let elapsed = now.timeIntervalSince(segmentStarted)
            if bytes.segment == 0 {
                bytes.segment = initial
            } else if elapsed > 0.2 {
                bytes.segment = min(bytes.segment * 2, initial * 32)
            } else if elapsed < 0.05 {
                bytes.segment = max(bytes.segment / 2, initial)
            }
            segmentStarted = now
            length = bytes.segment
        }
        // A range from 0 has nothing to splice onto; a later one needs `If-Range`.
        let isRanged = !flags.rangesRefused && (offset > 0 ? ifRange != nil : length != nil)
        flags.ranged = isRanged
        bytes.rangeOffset = isRanged ? offset : 0
        bytes.segmentEnd = nil
        flags.responded = false
        owner.unlockState()
        if isRanged {
            attempt.setValue("bytes=" + String(offset) + "-" + (length.map { String(offset + $0 - 1) } ?? ""), forHTTPHeaderField: "Range")
            if offset > 0, let ifRange {
                attempt.setValue(ifRange, forHTTPHeaderField: "If-Range")
            }
            // Offsets count the resource's own bytes, never those of a compressed form.
            attempt.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        } else if attempt.value(forHTTPHeaderField: "Accept-Encoding") == nil {
            // The file holds the resource's bytes; its length and a later resume need them.
            attempt.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        }
        guard let started = transport.streamingTask(with: attempt, priority: nil, observer: self) else {
            end(problem(.cancelled))
            return
        }
        owner.lockState()
        task = started
        let cancelNow = flags.cancelled
        owner.unlockState()
        if cancelNow { started.cancel() }
    }

    func cancel() {
        owner.lockState()
        flags.cancelled = true
        let running = task
        owner.unlockState()
        running?.cancel()
    }

    /// Records `error` as the transfer's failure (under the lock).
    @inline(__always)
    private func fail(_ error: NetworkError) {
        owner.lockState()
        failure = error
        owner.unlockState()
    }

    // MARK: TransferObserver

    @_optimize(size)  // once per attempt, never per byte
    func transferDidReceive(_ response: HTTPURLResponse) -> Bool {
        activity.transferMoved()
        owner.lockState()
        flags.responded = true
        self.response = response
        if firstByteAt == nil { firstByteAt = Date() }
        let offset = bytes.rangeOffset, wasRanged = flags.ranged, unvalidated = validator == nil
        owner.unlockState()
        let status = response.statusCode
        let range = status == 206 ? Self.contentRange(response.value(forHTTPHeaderField: "Content-Range")) : nil
        let isRange = status == 206 && range?.start == offset
        if wasRanged && (status == 416 || (status == 206 && !isRange)) {
            // The server refuses ranges (or answers another one): start over, once, whole.
            owner.lockState()
            if flags.restarted {
                failure = problem(.unacceptableStatus, response: response)
            } else {
                flags.restart = true
                flags.rangesRefused = true
            }
            owner.unlockState()
            return false
        }
        guard (200..<300).contains(status), status != 206 || isRange else {
            fail(problem(.unacceptableStatus, response: response))
            return false
        }
        // The range or its validator was ignored (the whole body follows, and no further
        // ranges: a changing validator would otherwise loop), or `bytes a-b/*` cannot
        // tell where the file ends: the rest comes whole. (Set with the writer below: a
        // transfer whose file cannot be opened ends here.)
        let refuseRanges = (wasRanged && !isRange) || (isRange && range?.total == nil)
        let coded = Self.isContentCoded(response)
        let total: Int64? = isRange
            ? range?.total
            : (response.expectedContentLength >= 0 && !coded ? response.expectedContentLength : nil)
        let etag = response.value(forHTTPHeaderField: "ETag")
        let lastModified = response.value(forHTTPHeaderField: "Last-Modified")
        do {
            // Bytes from the start of the file, or appended to those on disk.
            let fresh = offset == 0 || !isRange
            let opened = try FileWriter(url: Self.partialURL(destination, metadata: false), appending: !fresh)
            if options.resumable, let url = request.url, fresh || unvalidated, !coded {
                Self.saveMetadata(destination, url: url.absoluteString, etag: etag, lastModified: lastModified, totalLength: total)
            }
            owner.lockState()
            if refuseRanges { flags.rangesRefused = true }
            writer = opened
            bytes.written = fresh ? 0 : offset
            bytes.expected = total
            bytes.segmentEnd = isRange ? range?.end : nil
            if fresh { validator = Self.ifRangeValidator(etag: etag, lastModified: lastModified) }
            owner.unlockState()
            owner.reportProgress(written: fresh ? 0 : offset, expected: total)
            return true
        } catch {
            fail(Self.fileError(error, url: request.url))
            return false
        }
    }

    func transferDidReceive(_ data: Data) {
        activity.transferMoved()
        owner.lockState()
        let current = failure == nil ? writer : nil
        owner.unlockState()
        guard let current else { return }
        do {
            try current.write(data)
            owner.lockState()
            bytes.written += Int64(data.count)
            bytes.received += data.count
            let (count, total) = (bytes.written, bytes.expected)
            owner.unlockState()
            owner.reportProgress(written: count, expected: total)
        } catch {
            fail(Self.fileError(error, url: request.url))
            cancel()
        }
    }

    @_optimize(size)  // once per attempt, never per byte
    func transferDidComplete(_ error: (any Error)?) {
        owner.lockState()
        writer?.close()
        writer = nil
        task = nil
        let failure = failure, wasCancelled = flags.cancelled, count = bytes.written, total = bytes.expected, last = bytes.segmentEnd
        let declared = flags.responded ? bytes.expected : nil
        let startOver = flags.restart && !flags.restarted && !flags.cancelled
        if startOver {
            flags.restart = false
            flags.restarted = true
        }
        owner.unlockState()
        if startOver {
            Self.discardPartial(destination)
            start()
            return
        }
        let ending: NetworkError?
        if let typed = error as? NetworkError {
            // The session refused the server (its pins) or a redirect it would send without
            // the body (Linux): as it said, before the 3xx this transfer then saw.
            ending = typed
        } else if let failure {
            ending = failure
        } else if let error {
            ending = wasCancelled || (error as? URLError)?.errorCode == NSURLErrorCancelled
                ? problem(.cancelled)
                // A body cut short (libcurl's "transfer closed", -1 on Linux) is a connection loss.
                : problem(.transport, underlying: TransportOutcome.truncatedBody(error, declared: declared, received: count))
        } else if let last, total.map({ last + 1 < $0 }) ?? true {
            // One range done (of a known or an unknown total); ask for the next.
            guard count == last + 1 else {
                end(lost("a range ended early"))
                return
            }
            requestRange(from: last + 1)
            return
        } else if let total, count != total {
            ending = lost("the download ended after " + String(count) + " of " + String(total) + " bytes")
        } else {
            // Every byte is in `.partial`; the sink moves it into place once the exchange
            // accepted the download (validation, the attempt's clock).
            owner.reportProgress(written: count, expected: count)
            ending = nil
        }
        end(ending)
    }

    /// Reports the end of the transfer, once: `error`, or `nil` when every byte is in `.partial`.
    /// Kept out of line: it ends a dozen paths.
    @inline(never)
    private func end(_ error: NetworkError?) {
        owner.lockState()
        let first = !flags.finished
        flags.finished = true
        let outcome = TransportOutcome(request: request, response: response, error: error, firstByteAt: firstByteAt, streamedBytes: bytes.received)
        let completion = completion
        self.completion = nil  // its captures (the exchange) are not kept past the end
        owner.unlockState()
        guard first, let completion else { return }
        if error != nil, !options.resumable {
            Self.discardPartial(destination)
        }
        completion(outcome)
    }

    // MARK: Helpers

    /// An error of `kind` about this transfer's request, or about `response` (its status is
    /// not one this transfer accepts) when there is one (made in one place).
    @inline(never)
    private func problem(_ kind: NetworkError.Kind, _ message: String? = nil, response: HTTPURLResponse? = nil, underlying: (any Error)? = nil) -> NetworkError {
        Self.error(kind, message, url: response?.url ?? request.url, response: response, underlying: underlying)
    }

    /// The one call of `NetworkError`'s eleven-argument initializer in the module (each
    /// call materializes every argument).
    @inline(never)
    @_optimize(size)
    static func error(_ kind: NetworkError.Kind, _ message: String?, url: URL?, response: HTTPURLResponse?, underlying: (any Error)?) -> NetworkError {
        NetworkError(kind: kind, message: message, url: url, response: response, underlyingError: underlying)
    }

    /// The connection was lost before every byte arrived: `message` says how.
    @inline(never)
    private func lost(_ message: String) -> NetworkError {
        problem(.transport, message, underlying: URLError(.networkConnectionLost, userInfo: [String: Any]()))  // not the default `[:]`: a literal
    }

    /// `Content-Range: bytes 100-199/1000` → (100, 199, 1000); the total is `nil` for `*`
    /// (or anything but digits). Read byte by byte: the last word must be `first-last`,
    /// optionally followed by `/total`.
    @_optimize(size)  // once per attempt, never per byte
    static func contentRange(_ value: String?) -> (start: Int64, end: Int64, total: Int64?)? {
        guard let value else { return nil }
        // The word being read: its first and last byte, the number being read (-1: no digit
        // yet), which of the three it is, and whether the word is still well formed.
        var first: Int64 = -1, last: Int64 = -1, number: Int64 = -1
        var field = 0, wellFormed = true, unknownTotal = false
        // Its bytes with the C string's terminating NUL, which is not read: a plain array
        // loop, not the inlined UTF-8 view iterator and its slow path for foreign strings.
        let bytes = value.utf8CString
        for index in 0..<bytes.count - 1 {
            let byte = UInt8(bitPattern: bytes[index])
            switch byte {
            case UInt8(ascii: " "):
                (first, last, number, field, wellFormed, unknownTotal) = (-1, -1, -1, 0, true, false)
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                let digit = Int64(byte - UInt8(ascii: "0"))
                guard number <= (Int64.max - digit) / 10 else { return nil }
                number = max(number, 0) * 10 + digit
            case UInt8(ascii: "-") where field == 0:
                (first, number, field) = (number, -1, 1)
            case UInt8(ascii: "/") where field == 1:
                (last, number, field) = (number, -1, 2)
            default:
                // After the `/`, anything but digits is an unknown total.
                if field == 2 { unknownTotal = true } else { wellFormed = false }
            }
        }
        if field == 1 { last = number }
        guard wellFormed, field > 0, first >= 0, last >= 0 else { return nil }
        return (first, last, field == 2 && number >= 0 && !unknownTotal ? number : nil)
    }

    /// What `If-Range` may carry: a strong ETag, else Last-Modified (a weak ETag must
    /// not be used there); `nil` when neither is usable.
    static func ifRangeValidator(etag: String?, lastModified: String?) -> String? {
        if let etag, !etag.hasPrefix("W/") { return etag }
        return lastModified
    }

    /// Whether the body came with a content coding (its bytes are not the resource's).
    @_optimize(size)
    static func isContentCoded(_ response: HTTPURLResponse) -> Bool {
        guard let coding = response.value(forHTTPHeaderField: "Content-Encoding")?.trimmingCharacters(in: .whitespaces) else { return false }
        return !coding.isEmpty && coding.lowercased() != "identity"
    }

    @_optimize(size)
    static func fileError(_ error: any Error, url: URL?) -> NetworkError {
        Self.error(.transport, "cannot write the download: " + error.localizedDescription, url: url, response: nil, underlying: error)
    }
}
