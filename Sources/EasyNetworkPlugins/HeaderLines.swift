import Foundation

/// Header fields as a log shows them: `Name: value` lines ordered by name,
/// case-insensitively, with the values a ``LogRedaction`` hides masked.
///
/// One plain insertion sort (a request has a few headers) shared by the logger and
/// ``CURLCommand``: a `sorted(by:)` at each call site compiled a copy of the standard
/// library's sort for each closure. The logger passes a response's `allHeaderFields` as
/// the runtime casts them to `[String: String]`.
struct HeaderLines {
    /// What is masked; `nil` masks nothing.
    let redaction: LogRedaction?
    /// The lines so far, in order.
    private(set) var lines: [String] = []
    /// Each line's name, lowercased: what the order compares.
    private var keys: [String] = []

    init(redaction: LogRedaction?) {
        self.redaction = redaction
    }

    /// The lines of `fields`, by name ignoring case (names equal but for case keep the
    /// dictionary's order).
    static func of(_ fields: [String: String]?, redaction: LogRedaction?) -> [String] {
        var headers = HeaderLines(redaction: redaction)
        if let fields {
            for (name, value) in fields {
                headers.add(name, value)
            }
        }
        return headers.lines
    }

    /// Puts the line of `name` in its place, after those of names equal to it but for case.
    mutating func add(_ name: String, _ value: String) {
        let key = name.lowercased()
        var line = name
        line += ": "
        line += redaction?.hidesHeader(name) == true ? LogRedaction.mask : value
        var index = keys.count
        while index > 0, key < keys[index - 1] {
            index -= 1
        }
        LogRedaction.put(key, at: index, into: &keys, inserting: true)
        LogRedaction.put(line, at: index, into: &lines, inserting: true)
    }
}
