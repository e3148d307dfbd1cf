import Foundation

/// One HTTP request as received by a ``LoopbackServer``.
public struct RecordedRequest: Sendable {
    /// The request method, exactly as sent (for example `GET`).
    public let method: String
    /// The raw path exactly as sent (still percent-encoded), without the query.
    public let path: String
    /// The raw query string after `?`, exactly as sent; nil if the target had no `?`.
    public let query: String?
    /// The query decoded by `URLComponents`.
    ///
    /// Percent escapes are decoded, but `+` stays a literal `+` (it is not turned into a space).
    public let queryItems: [URLQueryItem]
    /// The header fields in the order received, with names as sent.
    public let headers: [(name: String, value: String)]
    /// The request body; already de-chunked if the request used `Transfer-Encoding: chunked`.
    public let body: Data
    /// When the whole request (head and body) had been read.
    public let receivedAt: Date
    /// Identifies the TCP connection the request came on; equal values mean the connection was reused.
    public let connectionID: Int

    /// The first value of the header `name`, compared case-insensitively; nil if absent.
    public func header(_ name: String) -> String? {
        headers.first { HTTPFieldText.sameName($0.name, name) }?.value
    }

    /// The body parsed with `JSONSerialization` (fragments allowed), or nil if it is empty or not JSON.
    public func jsonBody() -> Any? {
        guard !body.isEmpty else { return nil }
        return try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])
    }

    /// Builds a record from a parsed head and its body.
    init(head: LoopbackRequestHead, body: Data, connectionID: Int) {
        method = head.method
        (path, query) = head.pathAndQuery
        if let query, let components = URLComponents(string: "http://127.0.0.1/?" + query) {
            queryItems = components.queryItems ?? []
        } else {
            queryItems = []
        }
        headers = head.headers
        self.body = body
        receivedAt = Date()
        self.connectionID = connectionID
    }

    /// The value of the first query item called `name` (nil if absent or valueless).
    func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }
}
