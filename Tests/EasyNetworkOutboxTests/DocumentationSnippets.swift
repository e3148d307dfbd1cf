import EasyNetwork
import EasyNetworkOutbox
import Foundation

// The code of EasyNetworkOutbox.docc and of Outbox's comment, compiled
// (DocumentationTests finds it here).
enum OutboxDocumentationSnippets {
    struct TrackEvent: BaseAPIRequest {
        let name: String
        var api: String { "/events" }
        var method: NetworkService.Method { .post }
        var query: NetworkService.QueryType { .json }
        var params: [String: Any]? { ["name": name] }
        var headers: [String: String]? { nil }
    }

    static func sendAnEvent(host: HostConfiguration, queue: NetworkQueue, reportToSupport: @escaping @Sendable (Int?, String) -> Void) throws -> OutboxEntry {
        // import EasyNetworkOutbox
        let outbox = Outbox(host: host, queue: queue)
        outbox.onDeadLetter = { letter in reportToSupport(letter.statusCode, letter.reason) }
        outbox.resume()
        let entry = try outbox.send(TrackEvent(name: "purchase"))
        return entry
    }

    static func theTypesComment(host: HostConfiguration, queue: NetworkQueue, report: @escaping @Sendable (Int?, String) -> Void) throws {
        let outbox = Outbox(host: host, queue: queue)   // Application Support/…/<your module>/Outbox
        outbox.onDeadLetter = { letter in report(letter.statusCode, letter.reason) }
        outbox.resume()                                 // at launch, once the SDK is ready to send
        try outbox.send(TrackEvent(name: "purchase"))   // returns once the entry is on disk
    }
}
