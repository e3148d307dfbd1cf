import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Hands one adapted attempt to the request's plug-ins in order (coalescing may share
/// a transfer; a download's plug-in, the last, carries the attempt itself), then to the
/// host's session, with its clock, the ``AttemptTimer`` that hears every byte. A `plain`
/// attempt (one that needs no byte events, whose idle timeout the session keeps: see
/// ``RequestExchange``) goes out on a task with a completion handler instead, unless a
/// plug-in carries it on a transfer of its own. `arrived` runs once: on the session's
/// delegate queue, except on the sending thread when the session is gone or a download
/// fails before its task starts, and on the cancelling thread when a coalesced request
/// leaves a shared transfer.
enum TransportStage {
    /// Before the first attempt (without a body file): whether a plug-in (the cache)
    /// answered it with a stored response, mapped into `sink`; `queue` gets a value
    /// for `onCachedValue`.
    static func answered(_ urlRequest: inout URLRequest, plugIns: [any RequestPlugIn], sink: any ExchangeSink, lock: Lock, queue: DispatchQueue) -> Bool {
        let credential = plugIns.credential
        return plugIns.contains { $0.answers(&urlRequest, credential: credential, sink: sink, lock: lock, queue: queue) }
    }

    /// The task in flight (`nil` when the session is gone: `arrived` reported it).
    /// `timer` may be `nil` only for a plain attempt without plug-ins (no clock of its own).
    static func send(
        _ urlRequest: URLRequest,
        bodyFile: MultipartBodyFile?,
        plugIns: [any RequestPlugIn],
        transport: NetworkService,
        priority: Float?,
        uploadProgress: (@Sendable (Int64, Int64) -> Void)?,
        plain: Bool,
        timer: AttemptTimer?,
        arrived: @escaping @Sendable (TransportOutcome) -> Void
    ) -> TransportTask? {
        guard !plugIns.isEmpty, let timer else {
            return session(urlRequest, timer, arrived, plain: plain, bodyFile: bodyFile, transport: transport, priority: priority, uploadProgress: uploadProgress)
        }
        return send(0, urlRequest, plugIns, timer, arrived) { request, activity, arrived in
            // Plain only when the attempt reaches the session with its own clock: a shared
            // transfer (coalescing) hears its bytes for every seat.
            let own = plain && activity === timer
            if own { timer.leaveIdleToSession() }
            return session(request, activity, arrived, plain: own, bodyFile: bodyFile, transport: transport, priority: priority, uploadProgress: uploadProgress)
        }
    }

    /// The host's session, called from one place so the transport's code exists once.
    @inline(never)
    private static func session(
        _ request: URLRequest,
        _ activity: (any TransferActivity)?,
        _ arrived: @escaping @Sendable (TransportOutcome) -> Void,
        plain: Bool,
        bodyFile: MultipartBodyFile?,
        transport: NetworkService,
        priority: Float?,
        uploadProgress: (@Sendable (Int64, Int64) -> Void)?
    ) -> TransportTask? {
        if plain {
            return transport.plainTask(with: request, priority: priority, completion: arrived)
        }
        return transport.dataTask(with: request, bodyFile: bodyFile, priority: priority, uploadProgress: uploadProgress, activity: activity, completion: arrived)
    }

    private static func send(
        _ index: Int,
        _ request: URLRequest,
        _ plugIns: [any RequestPlugIn],
        _ activity: any TransferActivity,
        _ arrived: @escaping @Sendable (TransportOutcome) -> Void,
        session: (URLRequest, any TransferActivity, @escaping @Sendable (TransportOutcome) -> Void) -> TransportTask?
    ) -> TransportTask? {
        guard index < plugIns.count else { return session(request, activity, arrived) }
        return plugIns[index].send(request, activity: activity, next: { send(index + 1, $0, plugIns, $1, $2, session: session) }, arrived: arrived)
    }
}
