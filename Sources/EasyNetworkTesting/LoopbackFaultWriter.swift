import Foundation

/// Writes the fault endings of a ``LoopbackReply``: stalled and raw replies, and trickled bodies.
extension LoopbackReplyWriter {
    /// Sends a `.stall` or `.raw` reply; the connection is always closed afterwards.
    ///
    /// `if case` rather than a `switch`, so that endings other branches add need no change here.
    static func writeFault(_ reply: LoopbackReply, to fd: Int32, headOnly: Bool) -> Outcome {
        if case .raw(let bytes) = reply.ending {
            _ = LoopbackSocket.sendAll(fd, bytes)
        } else if case .stall(let declaredLength) = reply.ending {
            if let declaredLength {
                guard sendHeadAndPartialBody(reply, declaredLength: declaredLength, to: fd, headOnly: headOnly) else { return .close }
            }
            waitUntilPeerCloses(fd)
        }
        return .close
    }

    /// Sends `data` one byte at a time, pausing `interval` seconds before each byte but the first.
    static func sendTrickle(_ fd: Int32, _ data: Data, interval: TimeInterval) -> Bool {
        for (index, byte) in data.enumerated() {
            if index > 0 && interval > 0 {
                Thread.sleep(forTimeInterval: interval)
            }
            guard LoopbackSocket.sendAll(fd, Data([byte])) else { return false }
        }
        return true
    }

    private static func sendHeadAndPartialBody(_ reply: LoopbackReply, declaredLength: Int, to fd: Int32, headOnly: Bool) -> Bool {
        let head = makeHead(reply, framing: "Content-Length: \(declaredLength)", close: true)
        guard LoopbackSocket.sendAll(fd, head) else { return false }
        guard !headOnly, case .pattern(let start, let count) = reply.body else { return true }
        return sendPattern(fd, start: start, count: count)
    }

    /// Reads and drops whatever arrives until the client closes the connection (or the server's `stop()`
    /// shuts it down).
    private static func waitUntilPeerCloses(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            guard LoopbackSocket.waitReadable(fd, milliseconds: 1000) else { continue }
            let count = buffer.withUnsafeMutableBytes { LoopbackSocket.receive(fd, into: $0) }
            if count <= 0 { return }
        }
    }
}
