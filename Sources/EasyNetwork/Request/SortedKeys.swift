/// The keys of a dictionary in ascending order, by hand-written sorts over `[String]`: one
/// plain loop each keeps the standard library's sort specializations out of the binary.
/// (A namespace of ``QueryStringEncoder``'s: no type of its own.)
package typealias SortedKeys = QueryStringEncoder

extension QueryStringEncoder {
    /// The keys of `dictionary`, ascending, as `keys.sorted()` would give them, by a heap
    /// sort (n log n, in place), so that a caller's dictionary of 100,000 keys takes
    /// milliseconds, not minutes.
    static func of<Value>(_ dictionary: [String: Value]) -> [String] {
        var keys: [String] = []
        keys.reserveCapacity(dictionary.count)
        // One append per key: `append(contentsOf:)` compiled a copy of the keys' iteration
        // of its own (1 KB).
        for key in dictionary.keys {
            keys.append(key)
        }
        heapSortKeys(&keys)
        return keys
    }

    /// Puts `key` into the ascending `keys` at its place (the optional modules' one sort
    /// of a few strings).
    @_alwaysEmitIntoClient
    package static func insert(_ key: String, into keys: inout [String]) {
        keys.append(key)
        heapSortKeys(&keys)
    }
}

/// Sorts `keys` ascending in place (not stable: dictionary keys are distinct). A free
/// function: a static member compiled a second entry without its unused type argument.
@inline(never) @usableFromInline
func heapSortKeys(_ keys: inout [String]) {
    // Nothing to sort: an empty array's shared storage is never copied to be made unique.
    guard keys.count > 1 else { return }
    // Over the buffer: no uniqueness or bounds checks compiled into every access.
    keys.withUnsafeMutableBufferPointer { keys in
        var end = keys.count
        var start = end / 2
        // Builds the max-heap (`start` > 0), then moves its root behind it (`start` 0).
        while end > 1 {
            if start > 0 {
                start -= 1
            } else {
                end -= 1
                keys.swapAt(0, end)
            }
            // Moves `keys[start]` down the heap `keys[..<end]` to its place.
            var parent = start
            while true {
                var child = 2 * parent + 1
                if child >= end { break }
                if child + 1 < end, keys[child] < keys[child + 1] { child += 1 }
                if !(keys[parent] < keys[child]) { break }
                keys.swapAt(parent, child)
                parent = child
            }
        }
    }
}
