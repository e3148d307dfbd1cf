import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What judging and decoding a response needs from the host, captured when the
/// request starts so later setting changes do not affect it half-way.
struct ResponseContext: @unchecked Sendable {
    let acceptableStatusCodes: Set<Int>
    let envelope: ResponseEnvelope?
    let jsonDecoder: JSONDecoder

    init(settings: HostConfiguration.Settings) {
        acceptableStatusCodes = settings.acceptableStatusCodes
        envelope = settings.envelope
        jsonDecoder = settings.jsonDecoder
    }

    /// Sorts a transport outcome into a response worth decoding or an error.
    /// `cancelled` (the caller cancelled) wins over an outcome that is not a response.
    func classify(_ outcome: TransportOutcome, cancelled: Bool) -> Result<NetworkResponse, NetworkError> {
        let url = outcome.request.url
        if cancelled, outcome.error != nil || outcome.response == nil {
            return .failure(.cancelled(url: url))
        }
        if let error = outcome.error {
            if (error as? URLError)?.code == .cancelled {
                return .failure(.cancelled(url: url))
            }
            return .failure(.transport(TruncatedBody.classify(error, declared: outcome.response?.expectedContentLength, received: Int64(outcome.data.count)), url: url))
        }
        guard let response = outcome.response else {
            return .failure(.transport(URLError(.badServerResponse), url: url))
        }
        guard acceptableStatusCodes.contains(response.statusCode) else {
            return .failure(NetworkError(
                kind: .unacceptableStatus,
                message: ServerMessage.extract(from: outcome.data),
                url: url,
                response: response,
                data: outcome.data
            ))
        }
        return .success(NetworkResponse(
            request: outcome.request,
            httpResponse: response,
            data: outcome.data,
            envelope: envelope,
            jsonDecoder: jsonDecoder
        ))
    }
}
