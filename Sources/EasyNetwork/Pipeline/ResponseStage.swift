import Dispatch

/// Where everything after the transport runs: the cache, interceptors' `didReceive`
/// and `validate`, the status and envelope checks, the caller's mapper or decoder,
/// the retry decision and the ending.
///
/// A host's session calls back on one serial delegate queue. User code there (a slow
/// mapper, a validator that blocks) would hold up every other request of the host:
/// their bytes would have arrived, yet their completions would wait, and their
/// timeouts would fire. So the delegate queue only ends the attempt (its deadline is
/// disarmed there, before any user code runs) and hands the outcome over to this
/// concurrent queue, shared by the process, as Alamofire's serialization queue is.
/// Timeouts therefore cover the network only. The one exception runs no user code:
/// the seed's own JSON parse of a small successful body, with no interceptor, plug-in
/// or envelope, is handled on the delegate queue (one queue hop less per request).
enum ResponseStage {
    /// The concurrent queue the stages after the transport run on.
    static let queue = DispatchQueue(label: "EasyNetwork.response", attributes: .concurrent)

    /// The largest body the library's own mapping handles on the delegate queue (no hop).
    static let inlineLimit = 64 * 1024
}

/// Where request deadlines and retry backoffs fire: the response queue too (both are
/// concurrent and drawn from the same pool of threads; one queue is one initializer less).
enum ExchangeTimers {
    static var queue: DispatchQueue { ResponseStage.queue }
}
