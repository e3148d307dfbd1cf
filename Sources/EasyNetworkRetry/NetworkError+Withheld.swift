#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

extension NetworkError {
    /// This failure, unchanged but for its message, which ends with "retry withheld: "
    /// and `reason`: the request ends with its real failure, saying why it was not retried.
    /// The server's message stays in ``NetworkError/serverMessage``, counted in the
    /// sentences unless the host quotes it.
    @inline(never)  // many call sites, one copy
    func withheld(_ reason: String) -> NetworkError {
        appending("retry withheld: " + reason)
    }

    /// `seconds` for a message: one decimal and " s".
    @inline(never)
    static func seconds(_ seconds: TimeInterval) -> String {
        String(format: "%.1f s", max(0, seconds))
    }
}
