import Foundation

/// How slowly the server reads a request body: `step` bytes, then a pause of
/// `interval`, and optionally one long pause (`stall`) after `stallAfter` bytes.
///
/// Used by the built-in `/slow-upload` route, whose query sets it:
/// `step` (bytes, default 65536), `interval_ms` (default 20), `stall_after` (bytes)
/// and `stall_ms`. The server also shrinks its receive buffer for such a request, so
/// the client's sending follows the server's reading instead of filling a large
/// kernel buffer at once.
struct LoopbackReadPace: Sendable {
    /// The path whose bodies are read slowly.
    static let path = "/slow-upload"

    let step: Int
    let interval: TimeInterval
    let stallAfter: Int?
    let stall: TimeInterval

    /// The pace the head asks for, or `nil` when its body is read at full speed.
    init?(head: LoopbackRequestHead) {
        let (path, query) = head.pathAndQuery
        guard path == Self.path else { return nil }
        var values: [String: Int] = [:]
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let number = Int(parts[1]), number >= 0 {
                values[String(parts[0])] = number
            }
        }
        step = min(max(values["step"] ?? 65_536, 1_024), 16 << 20)
        interval = Double(min(values["interval_ms"] ?? 20, 60_000)) / 1000
        stallAfter = values["stall_after"]
        stall = Double(min(values["stall_ms"] ?? 0, 60_000)) / 1000
    }

    /// The pause due after the body's bytes went from `before` to `after`.
    func pause(from before: Int, to after: Int) -> TimeInterval {
        var pause: TimeInterval = 0
        if before / step != after / step {
            pause += interval
        }
        if let stallAfter, before < stallAfter, after >= stallAfter {
            pause += stall
        }
        return pause
    }
}
