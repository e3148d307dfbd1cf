#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

extension NetworkError {
    /// This failure, unchanged but for its message, which ends with "retry withheld: "
    /// and `reason`: the request ends with its real failure, saying why it was not retried.
    func withheld(_ reason: String) -> NetworkError {
        let clause = "retry withheld: " + reason
        var words = message ?? ""
        while let last = words.last, last == "." || last == " " {
            words.removeLast()
        }
        return NetworkError(
            kind: kind, message: words.isEmpty ? clause : words + "; " + clause, statusCode: statusCode, url: url,
            response: response, data: data, underlyingError: underlyingError, businessCode: businessCode,
            traceId: traceId, payload: payload, isUnauthorized: isUnauthorized
        )
    }

    /// `seconds` for a message: one decimal and " s".
    static func seconds(_ seconds: TimeInterval) -> String {
        String(format: "%.1f s", max(0, seconds))
    }
}
