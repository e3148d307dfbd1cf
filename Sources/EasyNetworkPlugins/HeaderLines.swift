import Foundation

/// Header fields as a log shows them: `Name: value` lines ordered by name,
/// case-insensitively, with the values a ``LogRedaction`` hides masked.
///
/// One plain insertion sort (a request has a few headers) shared by the logger and
/// ``CURLCommand``: a `sorted(by:)` at each call site compiled a copy of the standard
/// library's sort for each closure.
enum HeaderLines {
    /// The lines of `fields`, by name ignoring case (names equal but for case keep the
    /// dictionary's order); `redaction` `nil` masks nothing.
    static func of(_ fields: [String: String], redaction: LogRedaction?) -> [String] {
        var keys: [String] = []
        var lines: [String] = []
        keys.reserveCapacity(fields.count)
        lines.reserveCapacity(fields.count)
        for (name, value) in fields {
            let key = name.lowercased()
            let line = name + ": " + (redaction?.hidesHeader(name) == true ? LogRedaction.mask : value)
            keys.append(key)
            lines.append(line)
            var index = keys.count - 1
            while index > 0, key < keys[index - 1] {
                keys[index] = keys[index - 1]
                lines[index] = lines[index - 1]
                index -= 1
            }
            keys[index] = key
            lines[index] = line
        }
        return lines
    }
}
