import Foundation

/// Checks what `JSONSerialization.isValidJSONObject` lets through on some platforms
/// but cannot be written: NaN and infinite numbers.
enum JSONValidator {
    static func isWritable(_ value: Any) -> Bool {
        switch value {
        case let dictionary as [String: Any]:
            for element in dictionary.values where !isWritable(element) { return false }
            return true
        case let array as [Any]:
            for element in array where !isWritable(element) { return false }
            return true
        case let double as Double:
            return double.isFinite
        case let float as Float:
            return float.isFinite
        case let number as NSNumber:
            return number.doubleValue.isFinite
        default:
            return true
        }
    }
}
