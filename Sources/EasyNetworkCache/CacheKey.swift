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
    /// The request headers that identify a user.
    static let credentialHeaders = ["authorization", "cookie", "proxy-authorization"]

    /// The key as stored in the entry and hashed into its file name.
    let value: String
    /// Whether the request carried a credential (a `private` response is stored only then).
    let hasCredential: Bool

    init(request: URLRequest, token: String?) {
        var credential = Data()
        if let token {
            credential.append(Data("token:\(token)\n".utf8))
        }
        for name in Self.credentialHeaders {
            if let value = Self.header(name, of: request) {
                credential.append(Data("\(name):\(value)\n".utf8))
            }
        }
        hasCredential = !credential.isEmpty
        let body = request.httpBody.map(SHA256.hex) ?? "-"
        let user = hasCredential ? SHA256.hex(credential) : "-"
        value = "\(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "") \(body) \(user)"
    }

    /// What an entry remembers of the request headers its response's `Vary` names:
    /// for each name, the SHA-256 of the value sent (`-` when none was), so a header
    /// like `Authorization` is not written in clear either.
    static func varyValues(_ names: [String], of request: URLRequest) -> [String: String] {
        var values: [String: String] = [:]
        for name in names {
            values[name] = varyValue(name, of: request)
        }
        return values
    }

    /// What an entry remembers of the request header `name` (see ``varyValues(_:of:)``).
    /// Kept out of line: storing and matching share one copy.
    @inline(never)
    static func varyValue(_ name: String, of request: URLRequest) -> String {
        header(name, of: request).map { SHA256.hex(Data($0.utf8)) } ?? "-"
    }

    /// A request header, its name compared case-insensitively (Linux rewrites the case).
    static func header(_ name: String, of request: URLRequest) -> String? {
        if let value = request.value(forHTTPHeaderField: name) { return value }
        for (key, value) in request.allHTTPHeaderFields ?? [:] where key.caseInsensitiveCompare(name) == .orderedSame {
            return value
        }
        return nil
    }
}
