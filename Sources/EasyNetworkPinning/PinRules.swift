#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The interceptor of a ``PublicKeyPinning``'s part in a request: its `adapt` refuses a
/// request that pinning cannot protect (plain HTTP; Linux) before it is sent. One
/// reference (the runtime's shared value witnesses, none of its own), made per request.
@usableFromInline
struct PinRules: RequestInterceptor {
    /// The pinning whose rules decide.
    @usableFromInline let pinning: PublicKeyPinning

    @usableFromInline
    init(pinning: PublicKeyPinning) {
        self.pinning = pinning
    }

    /// Refuses a request pinning cannot protect before it is sent (every attempt, downloads too).
    @_alwaysEmitIntoClient  // only its witness uses it: inlined there, no copy of its own
    func adapt(_ urlRequest: URLRequest, context: RequestContext, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        if let refused = pinning.refusal(for: urlRequest.url, at: Date()) {
            completion(.failure(refused))
        } else {
            completion(.success(urlRequest))
        }
    }
}
