#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// How one backend wraps its answers, e.g. `{"code": 0, "msg": "", "data": {…}, "traceId": "…"}`,
/// set once per host (`host.envelope`) instead of in every operation.
///
/// With an envelope, a response that passed the status check is read as JSON and judged
/// by ``success``. On success the mappers, `Decodable` types and `success(Any?)` closures
/// see only the payload (``payloadKey``); on failure the request fails with a
/// `NetworkError` of kind `.business` carrying the code,
/// message, trace id and payload. Codes in ``unauthorizedCodes`` also post
/// `HostConfiguration.unauthorizedOperationNotification`, as a 401 does.
///
/// Three common conventions:
///
/// ```swift
/// // {"success": true, "data": {...}, "message": "..."}
/// host.envelope = .successFlag()
/// // {"code": 0, "msg": "...", "data": {...}, "traceId": "..."}
/// host.envelope = .codeEquals(0)
/// // {"errcode": 0, "errmsg": "ok", ...fields at the top level}     (seed 004)
/// host.envelope = .codeEquals(0, codeKey: "errcode", messageKey: "errmsg", payloadKey: nil)
/// // anything else
/// host.envelope = ResponseEnvelope(success: .custom { json in json["status"] as? String == "OK" })
/// ```
///
/// `Data` and `String` results are the raw body and skip the envelope. Keys may be
/// written as the body has them even when the host's decoder converts snake_case.
public struct ResponseEnvelope: Sendable {
    /// How the envelope says "success": ``flag(_:)``, ``code(_:equals:)`` or ``custom(_:)``.
    /// One immutable reference (no value witnesses of its own).
    public final class SuccessRule: Sendable {
        /// Which rule: 0 a flag, 1 a code, 2 a custom test.
        let kind: UInt8
        /// The flag's or the code's key (empty for a custom test).
        let key: String
        /// The codes that mean success (empty but for a code rule).
        let values: Set<String>
        /// The custom test, or `nil`.
        let test: (@Sendable ([String: Any]) -> Bool)?

        @usableFromInline
        init(kind: UInt8, key: String, values: Set<String>, test: (@Sendable ([String: Any]) -> Bool)?) {
            self.kind = kind
            self.key = key
            self.values = values
            self.test = test
        }

        /// A Boolean field that is `true` on success (`"success": true`, or the string
        /// `"true"`). A missing field, `null` or a number (`1`) counts as failure.
        @_alwaysEmitIntoClient  // built where it is used: no copy in the module
        public static func flag(_ key: String) -> SuccessRule {
            SuccessRule(kind: 0, key: key, values: [], test: nil)
        }

        /// A code field equal to one of the values, compared as text so that `0`, `"0"`
        /// and `0.0` match `"0"`. A boolean reads as `"true"`/`"false"`, never as a
        /// number; `null`, objects and arrays match nothing.
        @_alwaysEmitIntoClient  // built where it is used: no copy in the module
        public static func code(_ key: String, equals values: Set<String>) -> SuccessRule {
            SuccessRule(kind: 1, key: key, values: values, test: nil)
        }

        /// Your own test of the decoded top-level object (without the payload). When
        /// the host's decoder converts keys (`.convertFromSnakeCase`), a `Decodable`
        /// result shows the test the converted keys.
        @_alwaysEmitIntoClient  // built where it is used: no copy in the module
        public static func custom(_ test: @escaping @Sendable ([String: Any]) -> Bool) -> SuccessRule {
            SuccessRule(kind: 2, key: "", values: [], test: test)
        }
    }

    /// How success is decided.
    public var success: SuccessRule {
        @_alwaysEmitIntoClient get { fields.success }
        @_alwaysEmitIntoClient set { self = fields.with(success: newValue) }
        @_alwaysEmitIntoClient _modify {
            var value = fields.success
            yield &value
            self = fields.with(success: value)
        }
    }
    /// The key of the payload, or `nil` when the payload is the whole object (fields at
    /// the top level). A successful envelope without it gives a `nil`/missing payload.
    public var payloadKey: String? {
        @_alwaysEmitIntoClient get { fields.payloadKey }
        @_alwaysEmitIntoClient set { self = fields.with(payloadKey: .some(newValue)) }
        @_alwaysEmitIntoClient _modify {
            var value = fields.payloadKey
            yield &value
            self = fields.with(payloadKey: .some(value))
        }
    }
    /// The key of the business code reported in errors; for ``SuccessRule/code(_:equals:)``
    /// the code key is used when this is `nil`.
    public var codeKey: String? {
        @_alwaysEmitIntoClient get { fields.codeKey }
        @_alwaysEmitIntoClient set { self = fields.with(codeKey: .some(newValue)) }
        @_alwaysEmitIntoClient _modify {
            var value = fields.codeKey
            yield &value
            self = fields.with(codeKey: .some(value))
        }
    }
    /// Keys tried in order for the human message.
    public var messageKeys: [String] {
        @_alwaysEmitIntoClient get { fields.messageKeys }
        @_alwaysEmitIntoClient set { self = fields.with(messageKeys: newValue) }
        @_alwaysEmitIntoClient _modify {
            var value = fields.messageKeys
            yield &value
            self = fields.with(messageKeys: value)
        }
    }
    /// The key of the trace / request id.
    public var traceIdKey: String? {
        @_alwaysEmitIntoClient get { fields.traceIdKey }
        @_alwaysEmitIntoClient set { self = fields.with(traceIdKey: .some(newValue)) }
        @_alwaysEmitIntoClient _modify {
            var value = fields.traceIdKey
            yield &value
            self = fields.with(traceIdKey: .some(value))
        }
    }
    /// Business codes that mean "not signed in" or "token expired" (seed 000's
    /// notLogin / tokenLost), compared as text.
    public var unauthorizedCodes: Set<String> {
        @_alwaysEmitIntoClient get { fields.unauthorizedCodes }
        @_alwaysEmitIntoClient set { self = fields.with(unauthorizedCodes: newValue) }
        @_alwaysEmitIntoClient _modify {
            var value = fields.unauthorizedCodes
            yield &value
            self = fields.with(unauthorizedCodes: value)
        }
    }

    /// The settings, in one immutable object: the envelope is one reference (no value
    /// witnesses of its own), and its properties above are emitted into the programs that
    /// use them (a setter makes a new object), so the module carries one reader per field
    /// instead of a getter, a setter and a two-part `modify`.
    @usableFromInline let fields: Fields

    /// The fields of a ``ResponseEnvelope``.
    @usableFromInline
    final class Fields: Sendable {
        @usableFromInline let success: SuccessRule
        @usableFromInline let payloadKey: String?
        @usableFromInline let codeKey: String?
        @usableFromInline let messageKeys: [String]
        @usableFromInline let traceIdKey: String?
        @usableFromInline let unauthorizedCodes: Set<String>

        init(
            success: SuccessRule, payloadKey: String?, codeKey: String?, messageKeys: [String], traceIdKey: String?,
            unauthorizedCodes: Set<String>
        ) {
            self.success = success
            self.payloadKey = payloadKey
            self.codeKey = codeKey
            self.messageKeys = messageKeys
            self.traceIdKey = traceIdKey
            self.unauthorizedCodes = unauthorizedCodes
        }

        /// These fields with the given ones replaced (`nil`: kept; `.some(nil)` clears an
        /// optional key), as an envelope: emitted into the setters' callers only.
        @_alwaysEmitIntoClient
        func with(
            success: SuccessRule? = nil, payloadKey: String?? = nil, codeKey: String?? = nil, messageKeys: [String]? = nil,
            traceIdKey: String?? = nil, unauthorizedCodes: Set<String>? = nil
        ) -> ResponseEnvelope {
            ResponseEnvelope(
                success: success ?? self.success, payloadKey: payloadKey ?? self.payloadKey, codeKey: codeKey ?? self.codeKey,
                messageKeys: messageKeys ?? self.messageKeys, traceIdKey: traceIdKey ?? self.traceIdKey,
                unauthorizedCodes: unauthorizedCodes ?? self.unauthorizedCodes
            )
        }
    }

    /// Creates an envelope description.
    public init(
        success: SuccessRule,
        payloadKey: String? = "data",
        codeKey: String? = nil,
        messageKeys: [String] = ["msg", "message", "errmsg", "error"],
        traceIdKey: String? = "traceId",
        unauthorizedCodes: Set<String> = []
    ) {
        fields = Fields(
            success: success, payloadKey: payloadKey, codeKey: codeKey, messageKeys: messageKeys, traceIdKey: traceIdKey,
            unauthorizedCodes: unauthorizedCodes
        )
    }

    /// `{"success": true, "data": …, "message": …, "code": …}`.
    // Emitted into its callers, as ``codeEquals(_:codeKey:messageKey:payloadKey:unauthorizedCodes:)``:
    // a program sets one convention, and carries only that one.
    @_alwaysEmitIntoClient
    public static func successFlag(
        _ key: String = "success",
        payloadKey: String? = "data",
        codeKey: String? = "code",
        unauthorizedCodes: Set<String> = []
    ) -> ResponseEnvelope {
        ResponseEnvelope(success: .flag(key), payloadKey: payloadKey, codeKey: codeKey, unauthorizedCodes: unauthorizedCodes)
    }

    /// `{"code": 0, "msg": …, "data": …}`: success when the code equals `value`.
    @_alwaysEmitIntoClient
    public static func codeEquals(
        _ value: CustomStringConvertible,
        codeKey: String = "code",
        messageKey: String? = nil,
        payloadKey: String? = "data",
        unauthorizedCodes: Set<String> = []
    ) -> ResponseEnvelope {
        var envelope = ResponseEnvelope(
            success: .code(codeKey, equals: [value.description]),
            payloadKey: payloadKey,
            codeKey: codeKey,
            unauthorizedCodes: unauthorizedCodes
        )
        if let messageKey {
            var keys = [messageKey]
            for key in envelope.messageKeys where key != messageKey {
                keys.append(key)
            }
            envelope.messageKeys = keys
        }
        return envelope
    }

    /// Whether a decoded top-level object says success.
    @_optimize(size)
    func isSuccess(_ object: [String: Any]) -> Bool {
        let rule = success
        if let test = rule.test { return test(object) }
        let value = Self.value(of: rule.key, in: object)
        if rule.kind == 1 {
            return Self.codeText(value).map { Self.contains($0, in: rule.values) } ?? false
        }
        if let bool = value.flatMap(Self.jsonBool) { return bool }
        return value as? String == "true"
    }

    /// `object[key]`: one call site of the dictionary lookup for the envelope's readers,
    /// compiled once for every value type: the standard library's own lookup runs, not a
    /// copy specialized here.
    @_semantics("optimize.sil.specialize.generic.never")
    @inline(never)
    static func value<Value>(of key: String, in object: [String: Value]) -> Value? {
        object[key]
    }

    /// `set.contains(element)`, compiled once for every element type: the standard
    /// library's own code runs, not a copy specialized for `String` here.
    @_semantics("optimize.sil.specialize.generic.never")
    @inline(never)
    static func contains<Element>(_ element: Element, in set: Set<Element>) -> Bool {
        set.contains(element)
    }

    /// `key` as a decoder that converts snake_case would name it (`trace_id` →
    /// `traceId`): underscores dropped, each later part capitalised; `key` itself
    /// when it has fewer than two parts.
    @inline(__always)  // one caller
    static func camelCased(_ key: String) -> String {
        var result = ""
        var parts = 0
        var inPart = false
        for character in key {
            if character == "_" {
                inPart = false
                continue
            }
            if !inPart {
                inPart = true
                parts += 1
                if parts > 1 {
                    result += character.uppercased()
                    continue
                }
            }
            result.append(character)
        }
        return parts > 1 ? result : key
    }

    /// The text form of a JSON scalar used for codes, the one reader every path uses:
    /// `0`, `"0"` and `0.0` are all `"0"`; a boolean is `"true"` or `"false"` (never a
    /// number); `null`, objects and arrays have none.
    @_optimize(size)
    static func codeText(_ value: Any?) -> String? {
        guard let value else { return nil }
        if let string = value as? String {
            return string
        }
        if let bool = jsonBool(value) {
            return bool ? "true" : "false"
        }
        guard let number = value as? NSNumber else {
            return nil
        }
        let double = number.doubleValue
        if double.rounded() == double, abs(double) < 1e15 {
            return String(Int64(double))
        }
        return number.stringValue
    }

    /// `value` as a JSON boolean: a Swift `Bool` (from `Decodable`) or the boolean
    /// `NSNumber` `JSONSerialization` gives for `true`/`false`; `nil` for a number,
    /// which Foundation would otherwise happily cast to `Bool`.
    @_optimize(size)
    static func jsonBool(_ value: Any) -> Bool? {
        if type(of: value) == Bool.self {
            return value as? Bool
        }
        guard let number = value as? NSNumber else {
            return nil
        }
        // Foundation boxes JSON booleans in its own NSNumber subclass, on every platform.
        return type(of: number) == type(of: NSNumber(value: true)) ? number.boolValue : nil
    }
}
