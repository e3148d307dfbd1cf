/// The keys of a dictionary in ascending order, by a plain insertion sort: the core's
/// dictionaries are small (parameters, headers), and one hand-written loop over
/// `[String]` keeps the standard library's sort specializations out of the binary.
package enum SortedKeys {
    /// The keys of `dictionary`, ascending, as `keys.sorted()` would give them.
    static func of<Value>(_ dictionary: [String: Value]) -> [String] {
        var keys: [String] = []
        keys.reserveCapacity(dictionary.count)
        for key in dictionary.keys {
            insert(key, into: &keys)
        }
        return keys
    }

    /// Puts `key` into the ascending `keys` at its place (also the optional modules' one
    /// sort of a few strings).
    package static func insert(_ key: String, into keys: inout [String]) {
        keys.append(key)
        var index = keys.count - 1
        while index > 0, key < keys[index - 1] {
            keys[index] = keys[index - 1]
            index -= 1
        }
        keys[index] = key
    }
}
