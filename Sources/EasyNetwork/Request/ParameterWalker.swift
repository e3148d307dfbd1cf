import Foundation

/// Visits every value of a request's `params` once, in ascending key order at every level,
/// checking each against the rules of its encoding and naming each leaf the way the
/// bracket convention does (`user[tags][]`).
///
/// Iterative: a stack of containers on the heap instead of a recursion on the worker's
/// stack, so the depth of a caller's value can never overflow it, and the depth limit
/// (``EncodingFailure/maximumDepth``) is a rule of the encoding, not a guard against a
/// crash. A leaf's name is built in one buffer that grows and shrinks with the path, so
/// the work is linear in the size of the output.
struct ParameterWalker {
    /// How leaves are named.
    enum Naming {
        /// Not at all (JSON, and checking).
        case none
        /// Percent-encoded, brackets too (`user%5Btags%5D%5B%5D`): a query or form body.
        case escaped
        /// As written (`user[tags][]`): multipart field names.
        case plain
    }

    /// A container being visited, with the next child to visit.
    private struct Frame {
        /// A dictionary's keys in ascending order; empty for an array (an empty
        /// container is never entered).
        let keys: [String]
        let dictionary: [String: Any]
        let array: [Any]
        /// How its parent reached it: a key, or (when `nil`) the index `index`.
        let key: String?
        let index: Int
        /// The length of the name when it was entered, restored when it is left.
        let nameMark: Int
        var next = 0
    }

    /// JSON's rules (no dates, no descriptions) instead of a query's.
    let json: Bool
    let naming: Naming
    /// Leave out a value that breaks a rule instead of failing (the public
    /// ``QueryStringEncoder``, which cannot throw).
    var lenient = false
    /// The name and value of every value that is not a container (empty containers add
    /// nothing), in order; kept only when leaves are named.
    private(set) var leaves: [(name: String, value: Any)] = []
    /// The level of the deepest value (the parameters are level 1).
    private(set) var deepest = 1

    init(json: Bool, naming: Naming, lenient: Bool = false) {
        self.json = json
        self.naming = naming
        self.lenient = lenient
    }

    /// Visits `params` (once per walker), filling ``leaves`` and ``deepest``.
    /// - Throws: the first value that breaks a rule, unless `lenient`.
    @inline(never)
    mutating func walk(_ params: [String: Any]) throws(EncodingFailure) {
        var frames = [Frame(keys: SortedKeys.of(params), dictionary: params, array: [], key: nil, index: 0, nameMark: 0)]
        var name: [UInt8] = []
        while let top = frames.indices.last {
            let position = frames[top].next
            frames[top].next = position + 1
            let keys = frames[top].keys
            let key: String?
            let child: Any?
            if keys.isEmpty {
                key = nil
                child = position < frames[top].array.count ? frames[top].array[position] : nil
            } else {
                key = position < keys.count ? keys[position] : nil
                child = key.flatMap { frames[top].dictionary[$0] }
            }
            guard let value = child else {
                // Every child visited: leave the container.
                name.removeSubrange(frames[top].nameMark...)
                frames.removeLast()
                continue
            }

            let mark = name.count
            appendName(key, topLevel: top == 0, to: &name)
            let depth = frames.count + 1
            deepest = max(deepest, depth)
            var broken: EncodingFailure.Reason?
            var isLeaf = false
            if depth > EncodingFailure.maximumDepth {
                broken = .tooDeep
            } else {
                switch ParameterKind(value) {
                case .dictionary(let dictionary):
                    if !dictionary.isEmpty {
                        frames.append(Frame(keys: SortedKeys.of(dictionary), dictionary: dictionary, array: [], key: key, index: position, nameMark: mark))
                        continue
                    }
                case .array(let array):
                    if !array.isEmpty {
                        frames.append(Frame(keys: [], dictionary: [:], array: array, key: key, index: position, nameMark: mark))
                        continue
                    }
                case .scalar, .null:
                    isLeaf = true
                case .date(let finite):
                    broken = json ? .date : finite ? nil : .nonFinite
                    isLeaf = broken == nil
                case .nonFinite:
                    broken = .nonFinite
                case .collection:
                    broken = .collection
                case .other:
                    broken = json ? .notJSON : nil
                    isLeaf = broken == nil
                }
            }
            if let broken {
                if !lenient {
                    var path: [String] = []
                    for frame in frames.dropFirst() {
                        path.append(frame.key ?? "[" + String(frame.index) + "]")
                    }
                    path.append(key ?? "[" + String(position) + "]")
                    throw EncodingFailure(broken, path: path, type: type(of: value))
                }
            } else if isLeaf, naming != .none {
                leaves.append((String(decoding: name, as: UTF8.self), value))
            }
            name.removeSubrange(mark...)
        }
    }

    /// Appends the part of a leaf's name for a child at `key` (or an index): the key
    /// itself at the top level, then `[key]` for a key and `[]` for an index, escaped or not.
    private func appendName(_ key: String?, topLevel: Bool, to name: inout [UInt8]) {
        guard naming != .none else { return }
        let escaped = naming == .escaped
        guard let key else {
            name.append(contentsOf: (escaped ? "%5B%5D" : "[]").utf8)
            return
        }
        if !topLevel { name.append(contentsOf: (escaped ? "%5B" : "[").utf8) }
        name.append(contentsOf: (escaped ? QueryStringEncoder.escape(key) : key).utf8)
        if !topLevel { name.append(contentsOf: (escaped ? "%5D" : "]").utf8) }
    }
}
