/// The keys of a dictionary in ascending order, by hand-written sorts over `[String]`: one
/// plain loop each keeps the standard library's sort specializations out of the binary.
package enum SortedKeys {
    /// The keys of `dictionary`, ascending, as `keys.sorted()` would give them: an insertion
    /// sort for the usual handful of keys, a heap sort (n log n, in place) from 16 keys on,
    /// so that a caller's dictionary of 100,000 keys takes milliseconds, not minutes.
    static func of<Value>(_ dictionary: [String: Value]) -> [String] {
        var keys: [String] = []
        keys.reserveCapacity(dictionary.count)
        if dictionary.count < 16 {
            for key in dictionary.keys {
                insert(key, into: &keys)
            }
        } else {
            // One append per key, as above: `append(contentsOf:)` compiled a copy of the
            // keys' iteration of its own (1 KB).
            for key in dictionary.keys {
                keys.append(key)
            }
            heapSort(&keys)
        }
        return keys
    }

    /// Puts `key` into the ascending `keys` at its place (also the optional modules' one
    /// sort of a few strings).
    package static func insert(_ key: String, into keys: inout [String]) {
        keys.append(key)
        var index = keys.count - 1
        while index > 0, less(key, keys[index - 1]) {
            keys[index] = keys[index - 1]
            index -= 1
        }
        keys[index] = key
    }

    /// Sorts `keys` ascending in place (not stable: dictionary keys are distinct).
    @inline(never)
    static func heapSort(_ keys: inout [String]) {
        // Over the buffer: no uniqueness or bounds checks compiled into every access.
        keys.withUnsafeMutableBufferPointer { keys in
            var end = keys.count
            var start = end / 2
            while start > 0 {
                start -= 1
                siftDown(keys, from: start, end: end)
            }
            while end > 1 {
                end -= 1
                keys.swapAt(0, end)
                siftDown(keys, from: 0, end: end)
            }
        }
    }

    /// Moves `keys[root]` down the max-heap `keys[..<end]` to its place.
    private static func siftDown(_ keys: UnsafeMutableBufferPointer<String>, from root: Int, end: Int) {
        var parent = root
        while true {
            var child = 2 * parent + 1
            guard child < end else { return }
            if child + 1 < end, less(keys[child], keys[child + 1]) { child += 1 }
            guard less(keys[parent], keys[child]) else { return }
            keys.swapAt(parent, child)
            parent = child
        }
    }

    /// `a < b`, compiled once for both sorts.
    @inline(never)
    private static func less(_ a: String, _ b: String) -> Bool {
        a < b
    }
}
