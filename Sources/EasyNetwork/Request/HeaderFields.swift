/// HTTP header fields with case-insensitive names: a later value for the same name
/// replaces an earlier one and keeps the later spelling.
struct HeaderFields {
    private var storage: [String: (name: String, value: String)] = [:]
    private var order: [String] = []

    init(_ fields: [String: String] = [:]) {
        merge(fields)
    }

    /// Adds `fields`, replacing any field of the same name.
    mutating func merge(_ fields: [String: String]) {
        for name in SortedKeys.of(fields) {
            if let value = fields[name] {
                set(name, value)
            }
        }
    }

    mutating func set(_ name: String, _ value: String) {
        let key = name.lowercased()
        if storage[key] == nil {
            order.append(key)
        }
        storage[key] = (name, value)
    }

    mutating func setIfAbsent(_ name: String, _ value: String) {
        if storage[name.lowercased()] == nil {
            set(name, value)
        }
    }

    /// The fields in the order their names were first added.
    var fields: [(name: String, value: String)] {
        order.compactMap { storage[$0] }
    }
}
