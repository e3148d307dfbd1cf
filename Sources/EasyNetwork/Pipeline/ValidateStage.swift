import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// After the transport, on the ``ResponseStage`` queue: turns what one attempt
/// produced into a response worth mapping or an error. A timeout or a cancellation
/// wins over what arrived; a `304` to a revalidation becomes the stored response;
/// interceptors hear `didReceive`; then transport errors, the host's acceptable
/// status codes and the interceptors' `validate` decide. A streamed transfer (a
/// download) judged its own status and errors: its ``NetworkError`` passes unchanged,
/// and its response is never read with the host's envelope.
enum ValidateStage {
    static func run(
        _ arrived: TransportOutcome,
        cancelled: Bool,
        timedOut: URLError?,
        settings: HostConfiguration.SettingsSnapshot,
        plugIns: [any RequestPlugIn],
        interceptors: [any RequestInterceptor],
        context: RequestContext?
    ) -> Result<NetworkResponse, NetworkError> {
        var outcome = arrived
        if let timedOut, !cancelled {
            outcome.response = nil
            outcome.error = timedOut
        }
        for plugIn in plugIns {
            plugIn.received(&outcome)
        }
        if let context {
            for interceptor in interceptors {
                interceptor.didReceive(outcome.response, data: outcome.data, error: outcome.error, context: context)
            }
        }
        let classified = classify(outcome, cancelled: cancelled, settings: settings)
        guard let context, case .success(let response) = classified else { return classified }
        do {
            for interceptor in interceptors {
                try interceptor.validate(response, context: context)
            }
        } catch let error as NetworkError {
            return .failure(error)
        } catch {
            return .failure(NetworkError(
                kind: .unacceptableStatus,
                message: error.localizedDescription,
                url: response.request.url,
                response: response.httpResponse,
                data: response.data,
                underlyingError: error
            ))
        }
        return classified
    }

    /// Sorts an outcome into a response or an error; `cancelled` (the caller
    /// cancelled) wins over an outcome that is not a response.
    private static func classify(_ outcome: TransportOutcome, cancelled: Bool, settings: HostConfiguration.SettingsSnapshot) -> Result<NetworkResponse, NetworkError> {
        let url = outcome.request.url
        if cancelled, outcome.error != nil || outcome.response == nil {
            return .failure(.cancelled(url: url))
        }
        if let error = outcome.error {
            if (error as? URLError)?.errorCode == NSURLErrorCancelled {
                return .failure(.cancelled(url: url))
            }
            // An error the transfer typed itself (a download's: a status, a file) passes as is.
            if let error = error as? NetworkError {
                return .failure(error)
            }
            return .failure(.transport(TruncatedBody.classify(error, declared: outcome.response?.expectedContentLength, received: Int64(outcome.data.count)), url: url))
        }
        guard let response = outcome.response else {
            return .failure(.transport(URLError(.badServerResponse), url: url))
        }
        // A streamed transfer accepted its status itself (a 206 too); its body is on disk.
        let streamed = outcome.streamedBytes != nil
        guard streamed || settings.settings.acceptableStatusCodes.contains(response.statusCode) else {
            // The server's message is counted, not quoted (see NetworkError.message).
            return .failure(NetworkError(
                kind: .unacceptableStatus,
                message: ServerMessage.extract(from: outcome.data),
                url: url,
                response: response,
                data: outcome.data
            ).withServerText(quoted: false))
        }
        return .success(NetworkResponse(
            request: outcome.request,
            httpResponse: response,
            data: outcome.data,
            payloadReader: streamed ? nil : settings.settings.payloadReader,
            jsonDecoder: settings.settings.jsonDecoder
        ))
    }
}
