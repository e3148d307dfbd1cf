import Foundation

/// How a host's responses wrap their payload, judged before anything is decoded: the
/// seam of the `EasyNetworkEnvelopes` product (its `ResponseEnvelope` is one), set with
/// its `host.envelope`. The core never names an envelope: a ``NetworkResponse`` with a
/// reader asks it for the payload (``NetworkResponse/jsonObject()``,
/// ``NetworkResponse/decode(_:decoder:)``); one without reads the whole body.
@usableFromInline
package protocol PayloadReader: Sendable {
    /// The key of the payload in the body, or `nil` when the payload is the whole body
    /// (named in the error for a missing payload).
    var payloadKey: String? { get }
    /// The payload of `body` (the whole body as `JSONSerialization` gives it); `nil` when
    /// there is none.
    /// - Throws: a ``NetworkError`` (`business` when the body says the call failed).
    func payload(of body: Any?, in response: NetworkResponse) throws -> Any?
    /// The payload of `response` decoded as `type` with `decoder`, in one pass over the
    /// body; `nil` when there is none.
    /// - Throws: a ``NetworkError`` (`business`) or the decoder's error.
    func decodePayload<T: Decodable>(_ type: T.Type, decoder: JSONDecoder, in response: NetworkResponse) throws -> T?
}

extension HostConfiguration {
    /// The host's payload reader (its envelope), or `nil`.
    package var payloadReader: (any PayloadReader)? {
        @inline(never) get { snapshot().payloadReader }
    }

    /// Installs `reader` (its envelope; `nil`: none) for the requests that start afterwards.
    /// A method, not a setter: a settable property compiles a `modify` accessor too.
    package func setPayloadReader(_ reader: (any PayloadReader)?) {
        let settings = beginChange()
        settings.payloadReader = reader
        endChange(settings)
    }
}
