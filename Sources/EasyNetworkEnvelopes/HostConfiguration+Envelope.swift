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
        // Emitted into its callers: the module carries one reader and one writer, not
        // also the two-part `modify` of a public property.
        @_alwaysEmitIntoClient get { installedEnvelope() }
        @_alwaysEmitIntoClient set { install(newValue) }
        @_alwaysEmitIntoClient _modify {
            var envelope = installedEnvelope()
            yield &envelope
            install(envelope)
        }
    }

    /// The envelope of ``envelope``'s getter.
    @usableFromInline
    func installedEnvelope() -> ResponseEnvelope? {
        payloadReader as? ResponseEnvelope
    }

    /// What ``envelope``'s setter does.
    @usableFromInline
    func install(_ envelope: ResponseEnvelope?) {
        setPayloadReader(envelope)
    }
}
