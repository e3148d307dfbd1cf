#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

extension HostConfiguration {
    /// The host's callback queue, read in one place: each inlined read of the core's
    /// `callbackQueue` copies and frees the host's whole settings (batches and chains read it).
    @inline(never)
    var deliveryQueue: DispatchQueue {
        callbackQueue
    }
}
