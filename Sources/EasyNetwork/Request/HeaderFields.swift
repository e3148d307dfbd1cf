import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// HTTP header fields with case-insensitive names: a later value for the same name
/// replaces an earlier one and keeps the later spelling. A handful of fields, so
/// three parallel arrays searched in order (no dictionary type of its own).
struct HeaderFields {
    /// The lowercased names, in the order they were first added.
    private var keys: [String] = []
    /// The latest spelling of each name.
    private var names: [String] = []
    private var values: [String] = []

    init(_ fields: [String: String] = [:]) {
        merge(fields)
    }

    /// Adds `fields`, replacing any field of the same name; within `fields`, names
    /// that differ only in case are applied in ascending order.
    mutating func merge(_ fields: [String: String]) {
        for name in SortedKeys.of(fields) {
            if let value = fields[name] {
                set(name, value)
            }
        }
    }

    // `set` and `setIfAbsent` are never inlined: the builder calls them from several places.
    @inline(never)
    mutating func set(_ name: String, _ value: String) {
        let key = name.lowercased()
        if let index = index(of: key) {
            names[index] = name
            values[index] = value
        } else {
            keys.append(key)
            names.append(name)
            values.append(value)
        }
    }

    @inline(never)
    mutating func setIfAbsent(_ name: String, _ value: String) {
        if index(of: name.lowercased()) == nil {
            set(name, value)
        }
    }

    /// Sets the fields on `request`, in the order their names were first added.
    func apply(to request: inout URLRequest) {
        for index in names.indices {
            request.setValue(values[index], forHTTPHeaderField: names[index])
        }
    }

    private func index(of key: String) -> Int? {
        for index in keys.indices where keys[index] == key {
            return index
        }
        return nil
    }
}
