import Foundation

/// Finds the human message in an error body such as `{"error": "…"}`,
/// `{"message": "…"}`, `{"msg": "…"}` or `{"error": {"message": "…"}}`.
enum ServerMessage {
    static let keys = ["error", "message", "msg", "error_description", "detail"]

    @inline(__always)  // one caller
    static func extract(from data: Data?) -> String? {
        guard let data, !data.isEmpty, data.count < 1_000_000,
              let object = try? JSONSerialization.jsonObject(with: data, options: []),
              let dictionary = object as? [String: Any]
        else { return nil }
        return extract(from: dictionary)
    }

    @_optimize(size)
    static func extract(from dictionary: [String: Any]) -> String? {
        for key in keys {
            if let text = dictionary[key] as? String, !text.isEmpty {
                return text
            }
            if let nested = dictionary[key] as? [String: Any], let text = extract(from: nested) {
                return text
            }
        }
        return nil
    }
}
