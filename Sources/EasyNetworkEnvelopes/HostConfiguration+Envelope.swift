#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

extension HostConfiguration {
    /// How this backend wraps its answers (`{"code": 0, "data": …}`), or `nil` (the
    /// default) when it does not. See ``ResponseEnvelope``.
    ///
    /// Setting one installs it for the requests that start afterwards.
    public var envelope: ResponseEnvelope? {
        get { payloadReader as? ResponseEnvelope }
        set { setPayloadReader(newValue) }
    }
}
