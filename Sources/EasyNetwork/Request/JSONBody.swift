import Foundation

/// The JSON body of a request: its `params` (by `JSONSerialization`) or its
/// `encodableBody` (by the host's `JSONEncoder`), or an `.encoding` ``NetworkError`` naming
/// the key path and the type of the value that cannot be written, never the value itself.
///
/// `params` are checked before Foundation sees them, by ``ParameterWalker`` (JSON's rules,
/// at most 512 levels), and serialized on a thread with a large stack (``run(_:)``) when
/// deeper than ``inlineDepth``. An encodable body is always encoded on such a thread
/// (`JSONEncoder` recurses through the whole value before its writer refuses more than 512
/// levels), with a date strategy that refuses a `Date` that is NaN or infinite.
///
/// `JSONEncoder` and `JSONSerialization` take about 1.5–2.5 KB of stack per level on Linux
/// (measured), so the 512 levels EasyNetwork accepts need up to about 1.3 MB: more than the
/// 512 KB of a secondary thread or a dispatch worker on Apple platforms.
enum JSONBody {
    /// The deepest parameters serialized on the calling thread: at most about 80 KB of it.
    static let inlineDepth = 32

    /// The helper thread's stack: 128 MiB of address space, of which only the pages a value
    /// touches are ever allocated. Room for about 50,000 levels of `JSONEncoder` (2.5 KB
    /// each, the most measured), as deep as a value Swift can still release on an 8 MB
    /// thread (releasing recurses too, about 150 bytes per level).
    static let stackSize = 128 << 20

    /// JSON for `value` by `encoder` when given (always on a helper thread), else for
    /// `params`, keys sorted (on one when deeper than ``inlineDepth``).
    static func of(_ params: [String: Any], _ value: (any Encodable)?, encoder: JSONEncoder, url: URL) throws(NetworkError) -> Data {
        var job: Job = (params, value, nil, url, .success(Data()))
        var onThread = true
        if value != nil {
            job.encoder = checkingDates(encoder)
        } else {
            var leaves: [(name: String, value: String)] = []
            onThread = try ParameterWalker.walk(params, json: true, naming: ParameterWalker.unnamed, lenient: false, url: url, into: &leaves) > inlineDepth
        }
        if onThread {
            run(&job)
        } else {
            work(&job)
        }
        return try job.result.get()
    }

    /// `params`, checked, through `JSONSerialization`, which must never meet a value it
    /// cannot write (that raises an exception on Apple platforms).
    @inline(__always)  // one caller
    private static func serialize(_ params: [String: Any], url: URL) -> Result<Data, NetworkError> {
        // The walker's rules are stricter than Foundation's; this is the last guard.
        var failure: (any Error)?
        if JSONSerialization.isValidJSONObject(params) {
            do {
                return .success(try JSONSerialization.data(withJSONObject: params, options: JSONOptions.sortedKeys))
            } catch {
                failure = error
            }
        }
        // One error for both refusals (the first has no error of Foundation's).
        let message = failure?.localizedDescription ?? "the parameters hold a value JSON cannot represent"
        return .failure(NetworkError.library(.encoding, message, url: url, underlyingError: failure))
    }

    /// `encoder`, or, for the ISO 8601 date strategy, a copy that first refuses a date that
    /// is NaN or infinite: `JSONEncoder` writes one as a made-up date
    /// (`-4712-01-01T12:00:00Z`). The strategies that write a number need no check
    /// (`JSONEncoder` refuses a number that is not finite); a custom one, or a formatter
    /// (`.custom` underneath on Linux), is the host's own.
    @inline(__always)  // one caller
    static func checkingDates(_ encoder: JSONEncoder) -> JSONEncoder {
        guard case .iso8601 = encoder.dateEncodingStrategy else { return encoder }
        let copy = JSONEncoder()
        copy.outputFormatting = encoder.outputFormatting
        copy.dataEncodingStrategy = encoder.dataEncodingStrategy
        copy.nonConformingFloatEncodingStrategy = encoder.nonConformingFloatEncodingStrategy
        copy.keyEncodingStrategy = encoder.keyEncodingStrategy
        copy.userInfo = encoder.userInfo
        copy.dateEncodingStrategy = .custom { date, dateEncoder in
            guard date.timeIntervalSinceReferenceDate.isFinite else {
                throw EncodingError.invalidValue(date, EncodingError.Context(
                    codingPath: dateEncoder.codingPath, debugDescription: "The date is not finite (NaN or infinity)."
                ))
            }
            // JSONEncoder's own form: internet date-time, UTC (as a single value).
            try ISO8601DateFormatter().string(from: date).encode(to: dateEncoder)
        }
        return copy
    }

    /// `value` through `encoder`, its errors named by key path and type
    /// (``DecodingDiagnostics/reason(for:)``).
    @inline(__always)  // one caller
    private static func encode(_ value: any Encodable, encoder: JSONEncoder, url: URL) -> Result<Data, NetworkError> {
        do {
            return .success(try encoder.encode(value))
        } catch {
            var message = "cannot encode "
            message += DecodingDiagnostics.name(of: type(of: value))
            message += ": "
            message += DecodingDiagnostics.reason(for: error)
            return .failure(NetworkError.library(.encoding, message, url: url, underlyingError: error))
        }
    }

    /// Does `job`'s work on a new thread with a ``stackSize`` stack (on the calling thread
    /// if no thread can be started), and returns once it is done.
    @inline(__always)  // one caller
    static func run(_ job: inout Job) {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackSize)
        // The thread gets the job's address: the job outlives it (it is joined before this returns).
        let started = withUnsafeMutablePointer(to: &job) { job in
            #if canImport(Darwin)
            var thread: pthread_t?
            #else
            var thread = pthread_t()
            #endif
            guard pthread_create(&thread, &attributes, { context in
                #if canImport(Darwin)
                let job = context.assumingMemoryBound(to: Job.self)
                #else
                guard let job = context?.assumingMemoryBound(to: Job.self) else { return nil }
                #endif
                #if canImport(ObjectiveC)
                autoreleasepool { JSONBody.work(&job.pointee) }
                #else
                JSONBody.work(&job.pointee)
                #endif
                return nil
            }, job) == 0 else { return false }
            #if canImport(Darwin)
            if let thread { pthread_join(thread, nil) }
            #else
            pthread_join(thread, nil)
            #endif
            return true
        }
        if !started {
            work(&job)
        }
    }

    /// The work (its inputs, not a closure: no closure, context or forwarder per kind of
    /// body) and its result (an empty body until ``work(_:)`` ran), passed to the helper
    /// thread and back by address. A tuple, not a class or a struct: no type of our own,
    /// the runtime's own value witnesses serve it.
    typealias Job = (params: [String: Any], value: (any Encodable)?, encoder: JSONEncoder?, url: URL, result: Result<Data, NetworkError>)

    /// Makes `job`'s body: `value` through `encoder` when both are given, else `params`
    /// through `JSONSerialization`; or the `.encoding` error of the value that cannot be written.
    static func work(_ job: inout Job) {
        if let value = job.value, let encoder = job.encoder {
            job.result = encode(value, encoder: encoder, url: job.url)
        } else {
            job.result = serialize(job.params, url: job.url)
        }
    }
}
