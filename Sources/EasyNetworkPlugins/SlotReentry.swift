#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// What a parked operation goes through to take a slot again: a one-step operation on
/// the same queue, ahead of the waiting ones, that gives the lent slot back and resumes
/// the parked one. It cannot be cancelled: a cancelled operation's request ends on its
/// own, and a queue-wide cancel must not strand the parked one.
final class SlotReentry: Operation, @unchecked Sendable {  // unchecked: an Operation subclass; `body` is a let set in init
    private let body: @Sendable () -> Void

    init(_ body: @escaping @Sendable () -> Void) {
        self.body = body
        super.init()
        queuePriority = .veryHigh
    }

    override func main() {
        body()
    }

    override func cancel() {}
}
