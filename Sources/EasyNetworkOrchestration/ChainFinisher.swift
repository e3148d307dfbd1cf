#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// The last operation of a chain run: depends on every step and tells the run once all
/// of them have finished, whatever was cancelled meanwhile.
///
/// It ignores `cancel()`. `NetworkQueue.cancelAllOperations()` cancels every operation in
/// the queue, this one too; a cancelled operation is started at once, ends without running
/// its body (the chain would never report), and is freed while the steps still list it
/// as waiting for them: on Linux, where swift-corelibs-foundation reaches an operation's
/// dependents through a list that does not retain them, the next step to finish then
/// reads freed memory and the process crashes. The steps are cancelled with the rest;
/// this one waits for them and reports.
///
/// Generic (over its run's type, `ChainRun`), as ``ChainStepOperation`` is, only to keep
/// a second copy of the `Operation` vtable out of the binary.
final class ChainFinisher<Run: AnyObject>: Operation, @unchecked Sendable {
    // unchecked: an Operation subclass (Foundation's own state is thread-safe); its
    // field is set in init and never changes.
    private let run: ChainRun

    init(run: ChainRun) {
        self.run = run
        super.init()
    }

    override func main() {
        run.stepsFinished()
    }

    /// Does nothing: the finisher runs when the steps are done (see above).
    override func cancel() {}
}
