import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Reading a server's `Retry-After` (RFC 9110, 10.2.3): delta-seconds or an HTTP date.
/// The one copy, for the two optional modules that honour it and may not import each
/// other (`EasyNetworkRetry`, `EasyNetworkOutbox`); the core never reads it.
package enum RetryAfter {
    /// The seconds from `now` that `response`'s `Retry-After` asks for (0 for a date in the
    /// past), or `nil` when it has none or it cannot be read.
    package static func seconds(in response: HTTPURLResponse?, now: Date) -> TimeInterval? {
        response?.value(forHTTPHeaderField: "Retry-After").flatMap { seconds($0, now: now) }
    }

    /// The seconds `value` asks for: delta-seconds (a decimal fraction accepted), or an
    /// HTTP date in the preferred form or one of the two obsolete forms, measured from
    /// `now`; never negative. `nil` for anything else (a negative number, garbage).
    package static func seconds(_ value: String, now: Date) -> TimeInterval? {
        // No spaces at either end, single spaces between (asctime pads a day below 10 with a
        // second one): NSString's calls, not split and joined (1.8 KB of specialized code).
        var trimmed = NSString(string: value).trimmingCharacters(in: .whitespaces)
        while let range = trimmed.range(of: "  ") {
            trimmed.replaceSubrange(range, with: " ")
        }
        if let seconds = TimeInterval(trimmed) {
            return seconds.isFinite && seconds >= 0 ? seconds : nil
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        // IMF-fixdate, then the obsolete RFC 850 and asctime forms recipients must accept.
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: trimmed) {
                return max(0, date.timeIntervalSince(now))
            }
        }
        return nil
    }
}
