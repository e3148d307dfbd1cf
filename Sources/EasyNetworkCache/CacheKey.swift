#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
import EasyNetworkDigest
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a stored response is found by: method, URL, a hash of the body, and a hash
/// of the credentials the request is sent with (the authenticator's token and the
/// `Authorization`, `Proxy-Authorization` and `Cookie` headers, as sent after the
/// interceptors adapted the request). Two users never share an entry, and no
/// credential is written to disk: only its SHA-256.
struct CacheKey {
    /// The key as stored in the entry and hashed into its file name.
    let value: String
    /// Whether the request carried a credential (a `private` response is stored only then).
    let hasCredential: Bool

    init(request: URLRequest, token: String?) {
        var credential = ""
        if let token {
            credential = "token:" + token + "\n"
        }
        for name in ["authorization", "cookie", "proxy-authorization"] {
            if let value = request.value(forHTTPHeaderField: name) {  // case-insensitive, on Linux too
                credential += name + ":" + value + "\n"
            }
        }
        hasCredential = !credential.isEmpty
        var body = "-"
        if let data = request.httpBody { body = SHA256.hex(data) }
        let user = hasCredential ? Self.digest(credential) : "-"
        value = "\(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "") \(body) \(user)"
    }

    /// The SHA-256 of `text`'s UTF-8 bytes, in hexadecimal.
    static func digest(_ text: String) -> String {
        SHA256.hex(text.data(using: .utf8) ?? Data())
    }

    /// What an entry remembers of the request headers its response's `Vary` names:
    /// for each name, the SHA-256 of the value sent (`-` when none was), so a header
    /// like `Authorization` is not written in clear either.
    @inline(__always)  // one caller
    static func varyValues(_ names: [String], of request: URLRequest) -> [String: String] {
        var values = [String: String]()  // not `[:]`: a literal compiles Dictionary(dictionaryLiteral:)
        for name in names {
            put(varyValue(name, of: request), name, in: &values)
        }
        return values
    }

    /// What an entry remembers of the request header `name` (see ``varyValues(_:of:)``).
    /// Kept out of line: storing and matching share one copy.
    /// `values[name] = value`, compiled once for every value type: the standard library's
    /// own dictionary code runs (insertion and growth), not a copy specialized here.
    @_semantics("optimize.sil.specialize.generic.never")
    @inline(never)
    static func put<Value>(_ value: Value, _ name: String, in values: inout [String: Value]) {
        values.updateValue(value, forKey: name)
    }

    /// `values[name] as? Field`, compiled once for every type (see ``put(_:_:in:)``): one
    /// lookup and one cast for every field an entry's header is read for.
    @_semantics("optimize.sil.specialize.generic.never")
    @inline(never)
    static func get<Value, Field>(_ name: String, in values: [String: Value], as type: Field.Type) -> Field? {
        values[name] as? Field
    }

    /// `array.append(element)`, compiled once for every element type (see ``put(_:_:in:)``).
    @_semantics("optimize.sil.specialize.generic.never")
    @inline(never)
    static func append<Element>(_ element: Element, to array: inout [Element]) {
        array.append(element)
    }

    /// `Set(elements)`, compiled once for every element type (see ``put(_:_:in:)``).
    @_semantics("optimize.sil.specialize.generic.never")
    @inline(never)
    static func set<Element: Hashable>(_ elements: [Element]) -> Set<Element> {
        Set(elements)
    }

    @inline(never)
    static func varyValue(_ name: String, of request: URLRequest) -> String {
        guard let value = request.value(forHTTPHeaderField: name) else { return "-" }
        return digest(value)
    }

    /// The items of a `Cache-Control` or `Vary` value (RFC 9111 §5.2, RFC 9110 §12.5.5):
    /// comma-separated, each up to its first `=` (a directive's name), trimmed and
    /// lowercased, empty ones left out.
    @_optimize(size)  // a few short header values per stored response
    static func items(_ value: String?) -> [String] {
        var items: [String] = []
        for item in (value ?? "").lowercased().components(separatedBy: ",") {
            let name = (item.components(separatedBy: "=").first ?? "").trimmingCharacters(in: .whitespaces)
            if !name.isEmpty { append(name, to: &items) }
        }
        return items
    }

    /// Whether the `Cache-Control` or `Vary` value lists `name` (see ``items(_:)``).
    static func lists(_ name: String, in value: String?) -> Bool {
        items(value).contains(name)
    }
}
