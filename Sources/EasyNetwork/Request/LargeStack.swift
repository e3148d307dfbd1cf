import Foundation

/// Runs an encoding that recurses once per level of a caller's value on a new thread whose
/// stack is known to be large enough, while the calling thread waits for it.
///
/// `JSONEncoder` and `JSONSerialization` take about 1.5–2.5 KB of stack per level on Linux
/// (measured), so the 512 levels EasyNetwork accepts need up to about 1.3 MB: more than the
/// 512 KB of a secondary thread or a dispatch worker on Apple platforms. `JSONEncoder`'s
/// recursion cannot be bounded from outside (it walks the whole value before its writer
/// refuses JSON deeper than 512 levels), so every encodable body is encoded here; so are
/// parameters deeper than ``inlineDepth`` (checked first, so at most 512 levels).
enum LargeStack {
    /// The deepest parameters serialized on the calling thread: at most about 80 KB of it.
    static let inlineDepth = 32

    /// The helper thread's stack: 128 MiB of address space, of which only the pages a value
    /// touches are ever allocated. Room for about 50,000 levels of `JSONEncoder` (2.5 KB
    /// each, the most measured), as deep as a value Swift can still release on an 8 MB
    /// thread (releasing recurses too, about 150 bytes per level).
    static let stackSize = 128 << 20

    /// The result of `job`'s work, computed on a new thread with a ``stackSize`` stack (on
    /// the calling thread if no thread can be started). The work comes in its ``Job``, not
    /// as a closure argument, so that the optimizer compiles no copy of this per caller.
    @inline(never)
    static func run(_ job: Job) -> Result<Data, NetworkError> {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackSize)
        let context = Unmanaged.passRetained(job)
        #if canImport(Darwin)
        var thread: pthread_t?
        #else
        var thread = pthread_t()
        #endif
        guard pthread_create(&thread, &attributes, { context in
            #if canImport(Darwin)
            let job = Unmanaged<Job>.fromOpaque(context).takeRetainedValue()
            #else
            guard let context else { return nil }
            let job = Unmanaged<Job>.fromOpaque(context).takeRetainedValue()
            #endif
            #if canImport(ObjectiveC)
            autoreleasepool { job.result = job.work() }
            #else
            job.result = job.work()
            #endif
            return nil
        }, context.toOpaque()) == 0 else {
            context.release()
            return job.work()
        }
        #if canImport(Darwin)
        if let thread { pthread_join(thread, nil) }
        #else
        pthread_join(thread, nil)
        #endif
        // Always set once the thread ran: only a thread that never ran leaves the work undone.
        return job.result ?? job.work()
    }

    /// The work and its result, passed to the helper thread and back.
    final class Job: @unchecked Sendable {
        // unchecked: the helper thread is its only user from `pthread_create` until
        // `pthread_join` returns, which orders its writes before the caller's read.
        let work: () -> Result<Data, NetworkError>
        var result: Result<Data, NetworkError>?

        init(_ work: @escaping () -> Result<Data, NetworkError>) {
            self.work = work
        }
    }
}
