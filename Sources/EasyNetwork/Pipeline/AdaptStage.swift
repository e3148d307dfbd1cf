import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Adapting an attempt's `URLRequest`: every interceptor's asynchronous `adapt`, in
/// order (the token first, then the host's, then the request's), each given what the
/// one before returned, its headers checked (``HeaderFieldCheck``). It runs on the
/// thread of the previous completion, with no hop.
enum AdaptStage {
    /// `urlRequest` after every interceptor's `adapt`; a refusal becomes the request's
    /// failure (a ``NetworkError`` as is, anything else as `invalidRequest`).
    static func run(
        _ urlRequest: URLRequest,
        interceptors: [any RequestInterceptor],
        context: RequestContext,
        completion: @escaping @Sendable (Result<URLRequest, NetworkError>) -> Void
    ) {
        adapt(0, urlRequest, interceptors, context, completion)
    }

    private static func adapt(
        _ index: Int,
        _ urlRequest: URLRequest,
        _ interceptors: [any RequestInterceptor],
        _ context: RequestContext,
        _ completion: @escaping @Sendable (Result<URLRequest, NetworkError>) -> Void
    ) {
        guard index < interceptors.count else {
            completion(.success(urlRequest))
            return
        }
        let url = urlRequest.url
        let interceptor = interceptors[index]
        interceptor.adapt(urlRequest, context: context) { result in
            switch result {
            case .success(let adapted):
                // What an interceptor set is checked as the request's own headers were
                // (`allHTTPHeaderFields` takes any text on Linux, CR LF included).
                if let refused = HeaderFieldCheck.failure(in: adapted.allHTTPHeaderFields, url: adapted.url, source: "", of: interceptor) {
                    return completion(.failure(refused))
                }
                adapt(index + 1, adapted, interceptors, context, completion)
            case .failure(let error as NetworkError):
                completion(.failure(error))
            case .failure(let error):
                completion(.failure(NetworkError(kind: .invalidRequest, message: "an interceptor refused the request: " + error.localizedDescription, url: url, underlyingError: error)))
            }
        }
    }
}
