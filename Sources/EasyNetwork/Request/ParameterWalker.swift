import Foundation

/// Visits every value of a request's `params` once, in ascending key order at every level,
/// checking each against the rules of its encoding and naming each leaf the way the
/// bracket convention does (`user[tags][]`).
///
/// Iterative: a stack of containers on the heap instead of a recursion on the worker's
/// stack, so the depth of a caller's value can never overflow it, and the depth limit
/// (``EncodingFailure/maximumDepth``) is a rule of the encoding, not a guard against a
/// crash. A leaf's name is built in one string that grows and shrinks with the path, so
/// the work is linear in the size of the output.
///
/// What a value is, is decided without a cast that could convert a whole collection: on
/// Linux, `value is NSNull` or `value as? NSNumber` turns an array or a dictionary, with
/// everything nested inside it, into its Objective-C form first, a recursion as deep as
/// the value (a crash for a deep one, and quadratic time for a moderately deep one). So
/// the collections are told apart first, by casts to Swift collection types, and only what
/// is left is asked about classes.
///
/// Size: one function and no type of its own (a namespace, a tuple for a container, an
/// `Int` for the naming and the rule's text for a failure), so no value witnesses, enum
/// payload copies or `Error` conformance are compiled for it.
enum ParameterWalker {
    /// Leaves are not named (JSON, and checking).
    static let unnamed = 0
    /// Leaves are named and written percent-encoded, brackets too
    /// (`user%5Btags%5D%5B%5D=a%20b`): a query or form body.
    static let escaped = 1
    /// Leaves are named and written as they are (`user[tags][]`, `a b`): multipart fields.
    static let plain = 2

    /// Visits `params` with JSON's rules (no dates, no descriptions) when `json`, else a
    /// query's. With a `naming` other than ``unnamed``, appends to `leaves` the name and
    /// text of every value that is not a container (empty containers add nothing), in order.
    ///
    /// - Returns: the `.encoding` error (for `url`) of the first value that breaks a rule
    ///   (`nil` when none does, or when `lenient`, which leaves such values out: the public
    ///   ``QueryStringEncoder``, which cannot throw), and the level of the deepest value
    ///   (the parameters are level 1).
    @inline(never)
    static func walk(
        _ params: [String: Any], json: Bool, naming: Int, lenient: Bool, url: URL?,
        into leaves: inout [(name: String, value: String)]
    ) -> (failure: NetworkError?, deepest: Int) {
        var frames: [Frame] = [(SortedKeys.of(params), params, [], 0, 0)]
        var name = ""
        var deepest = 1
        while !frames.isEmpty {
            let top = frames.count - 1
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
                truncate(&name, to: frames[top].nameMark)
                frames.removeLast()
                continue
            }

            let mark = name.utf8.count
            if naming != unnamed {
                appendName(key, topLevel: top == 0, escaped: naming == escaped, to: &name)
            }
            let depth = frames.count + 1
            deepest = max(deepest, depth)
            // The rule `value` breaks, as the end of its sentence (`nil`: none).
            var broken: String?
            var isLeaf = true
            if depth > EncodingFailure.maximumDepth {
                broken = EncodingFailure.tooDeep
            } else if value is String {
                // Text: JSON writes it, a query writes it.
            } else if let dictionary = value as? [String: Any] {
                if !dictionary.isEmpty {
                    frames.append((SortedKeys.of(dictionary), dictionary, [], mark, 0))
                    continue
                }
                isLeaf = false
            } else if let array = value as? [Any] {
                if !array.isEmpty {
                    frames.append(([], [:], array, mark, 0))
                    continue
                }
                isLeaf = false
            } else if case Optional<Any>.none = value {
                // JSON `null`; in a query `key=nil` (as before).
            } else if value is Substring {
                // Text, although it is a collection too.
            } else if value is any Sequence {
                // A `Set`, a dictionary with other keys, `Data`: never nests.
                broken = ": only arrays and dictionaries with String keys can hold other parameters"
            } else if let date = value as? Date {
                // No JSON type; a query writes its description when it is finite.
                broken = json ? ", which JSON cannot represent: send it as a string (ISO 8601) or a number, or use an encodableBody"
                    : date.timeIntervalSinceReferenceDate.isFinite ? nil : EncodingFailure.nonFinite
            } else if value is NSNull {
                // JSON `null`; in a query `key=`.
            } else if let number = value as? NSNumber {
                // Every Swift integer, `Bool`, `Double`, `Float` and `Decimal` bridges here.
                broken = number.doubleValue.isFinite ? nil : EncodingFailure.nonFinite
            } else if let number = value as? CGFloat, !number.isFinite {
                // Not an `NSNumber` on Linux (a finite one is written as anything else is).
                broken = EncodingFailure.nonFinite
            } else if json {
                // A `URL`, a `UUID`, an enum: a query writes its description, JSON refuses it.
                broken = ", which JSON cannot represent (only strings, finite numbers, booleans, NSNull, arrays and dictionaries with String keys)"
            }
            if let broken {
                if !lenient {
                    return (failure(at: frames, type: type(of: value), rule: broken, url: url), deepest)
                }
            } else if isLeaf, naming != unnamed {
                let text = Self.text(for: value)
                leaves.append((name, naming == escaped ? QueryStringEncoder.escape(text) : text))
            }
            truncate(&name, to: mark)
        }
        return (nil, deepest)
    }

    /// A container being visited: a dictionary's keys in ascending order (empty for an
    /// array; an empty container is never entered), the dictionary or the array, the length
    /// of the name when it was entered, and the next child to visit. A tuple, not a struct:
    /// the runtime's own value witnesses serve it.
    private typealias Frame = (keys: [String], dictionary: [String: Any], array: [Any], nameMark: Int, next: Int)

    /// The `.encoding` error of a value of `type` that breaks `rule`, the last child visited
    /// of the last of `frames` (each frame the last child visited of the one before).
    /// Cold: only a refusal calls it.
    @inline(never)
    private static func failure(at frames: [Frame], type: Any.Type, rule: String, url: URL?) -> NetworkError {
        var path: [String] = []
        for frame in frames {
            let position = frame.next - 1
            path.append(frame.keys.isEmpty ? "[" + String(position) + "]" : frame.keys[position])
        }
        let subject = EncodingFailure.subject(path)
        let message = rule == EncodingFailure.tooDeep ? subject + rule : subject + " is a " + String(describing: type) + rule
        return NetworkError(kind: .encoding, message: message, url: url)
    }

    /// Appends the part of a leaf's name for a child at `key` (or an index): the key
    /// itself at the top level, then `[key]` for a key and `[]` for an index, escaped or not.
    private static func appendName(_ key: String?, topLevel: Bool, escaped: Bool, to name: inout String) {
        guard let key else {
            name += escaped ? "%5B%5D" : "[]"
            return
        }
        if !topLevel { name += escaped ? "%5B" : "[" }
        name += escaped ? QueryStringEncoder.escape(key) : key
        if !topLevel { name += escaped ? "%5D" : "]" }
    }

    /// Cuts `name` back to its first `length` UTF-8 bytes (always where a part of it began).
    private static func truncate(_ name: inout String, to length: Int) {
        let utf8 = name.utf8
        if utf8.count > length {
            name.removeSubrange(utf8.index(utf8.startIndex, offsetBy: length)..<name.endIndex)
        }
    }

    /// The textual form of a value a query writes (a string, a finite number, `Bool`,
    /// `NSNull`, `nil`, a finite `Date` or anything else a query accepts).
    @inline(__always)  // one caller
    private static func text(for value: Any) -> String {
        switch value {
        case let string as String:
            return string
        case is NSNull:
            return ""
        case let bool as Bool where type(of: value) == Bool.self:
            return bool ? "true" : "false"
        case let number as NSNumber:
            let type = String(cString: number.objCType)
            if type == "c" || type == "B" {
                return number.boolValue ? "true" : "false"
            }
            return number.stringValue
        default:
            return String(describing: value)
        }
    }
}
