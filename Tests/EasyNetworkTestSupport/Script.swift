import EasyNetworkTesting
import Foundation

/// Answers from a script, one per call, repeating the last.
public final class Script: @unchecked Sendable {  // unchecked: `replies` guarded by `lock`
    private let lock = NSLock()
    private var replies: [LoopbackReply]

    public init(_ replies: [LoopbackReply]) {
        self.replies = replies
    }

    public func next() -> LoopbackReply {
        lock.lock(); defer { lock.unlock() }
        return replies.count > 1 ? replies.removeFirst() : replies[0]
    }
}

