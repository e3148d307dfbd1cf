import Foundation

/// The texts of an `.encoding` ``NetworkError``, under the name its callers use (one type).
typealias EncodingFailure = ParameterWalker

/// Visits every value of a request's `params` once, in ascending key order at every level,
/// checking each against the rules of its encoding and naming each leaf the way the
/// bracket convention does (`user[tags][]`); and words why a value cannot be encoded.
///
/// Iterative: a stack of containers on the heap instead of a recursion on the worker's
/// stack, so the depth of a caller's value can never overflow it, and the depth limit
/// (``maximumDepth``) is a rule of the encoding, not a guard against a crash. A leaf's
/// name is built in one string that grows and shrinks with the path, so the work is
/// linear in the size of the output.
///
/// What a value is, is decided without a cast that could convert a whole collection: on
/// Linux, `cast(value, NSNull.self) != nil` or `value as? NSNumber` turns an array or a dictionary, with
/// everything nested inside it, into its Objective-C form first, a recursion as deep as
/// the value (a crash for a deep one, and quadratic time for a moderately deep one). So
/// the collections are told apart first, by casts to Swift collection types, and only what
/// is left is asked about classes.
///
/// A failure's message names the key path (`user.dates[2]`) and the value's type, never
/// the value itself: parameters carry passwords and tokens, and messages end up in logs.
@usableFromInline
enum ParameterWalker {
    /// Leaves are not named (JSON, and checking).
    static let unnamed = 0
    /// Leaves are named and written percent-encoded, brackets too
    /// (`user%5Btags%5D%5B%5D=a%20b`): a query or form body.
    static let escaped = 1
    /// Leaves are named and written as they are (`user[tags][]`, `a b`): multipart fields.
    static let plain = 2

    /// The deepest a value may sit in parameters or in an encodable body: the parameters (or
    /// the body's top-level value) are level 1, and each value inside an array or a
    /// dictionary is one level deeper than it. The same limit as Foundation's
    /// `JSONSerialization`, far deeper than any real payload.
    static let maximumDepth = 512

    /// The end of the sentence of a value nested deeper than ``maximumDepth``.
    static var tooDeep: String { " is nested deeper than 512 levels, the most EasyNetwork encodes" }

    /// The end of the sentence of a number or a date that is NaN or infinite.
    static var nonFinite: String { " that is not finite (NaN or infinity)" }

    /// A container being visited: a dictionary's keys in ascending order (empty for an
    /// array; an empty container is never entered), its values in that order, the length
    /// of the name when it was entered, and the next child to visit. A tuple, not a struct:
    /// the runtime's own value witnesses serve it.
    private final class Frame {
        let keys: [String]
        let values: [Any]
        let mark: Int
        var next = 0

        init(_ keys: [String], _ values: [Any], _ mark: Int) {
            self.keys = keys
            self.values = values
            self.mark = mark
        }
    }

    /// Visits `params` with JSON's rules (no dates, no descriptions) when `json`, else a
    /// query's. With a `naming` other than ``unnamed``, appends to `leaves` the name and
    /// text of every value that is not a container (empty containers add nothing), in order.
    ///
    /// - Returns: the level of the deepest value (the parameters are level 1).
    /// - Throws: the `.encoding` error (for `url`) of the first value that breaks a rule,
    ///   unless `lenient`, which leaves such values out (the public ``QueryStringEncoder``,
    ///   which cannot throw).
    @inline(never) @usableFromInline
    static func walk(
        _ params: [String: Any], json: Bool, naming: Int, lenient: Bool, url: URL?,
        into leaves: inout [(name: String, value: String)]
    ) throws(NetworkError) -> Int {
        var frames: [Frame] = [frame(params, mark: 0)]
        var name = ""
        var deepest = 1
        while let current = frames.last {
            let top = frames.count - 1
            let position = current.next
            guard position < current.values.count else {
                // Every child visited: leave the container.
                truncate(&name, to: current.mark)
                frames.removeLast()
                continue
            }
            current.next = position + 1
            let value = current.values[position]

            let mark = name.utf8.count
            if naming != unnamed {
                let key: String? = current.keys.isEmpty ? nil : current.keys[position]
                appendName(key, topLevel: top == 0, escaped: naming == escaped, to: &name)
            }
            let depth = frames.count + 1
            deepest = max(deepest, depth)
            // The rule `value` breaks, as the end of its sentence (`nil`: none).
            var broken: String?
            var isLeaf = true
            // A leaf's text, where it is not its description.
            var text: String?
            if depth > maximumDepth {
                broken = tooDeep
            } else if let string = cast(value, String.self) {
                // Text: JSON writes it, a query writes it.
                text = string
            } else if let dictionary = cast(value, [String: Any].self) {
                if !dictionary.isEmpty {
                    frames.append(frame(dictionary, mark: mark))
                    continue
                }
                isLeaf = false
            } else if let array = cast(value, [Any].self) {
                if !array.isEmpty {
                    frames.append(Frame([], array, mark))
                    continue
                }
                isLeaf = false
            } else if case Optional<Any>.none = value {
                // JSON `null`; in a query `key=nil` (as before).
            } else if cast(value, Substring.self) != nil {
                // Text, although it is a collection too.
            } else if cast(value, (any Sequence).self) != nil {
                // A `Set`, a dictionary with other keys, `Data`: never nests.
                broken = ": only arrays and dictionaries with String keys can hold other parameters"
            } else if let date = cast(value, Date.self) {
                // No JSON type; a query writes its description when it is finite.
                broken = json ? ", which JSON cannot represent: send it as a string (ISO 8601) or a number, or use an encodableBody"
                    : date.timeIntervalSinceReferenceDate.isFinite ? nil : nonFinite
            } else if cast(value, NSNull.self) != nil {
                // JSON `null`; in a query `key=`.
                text = ""
            } else if let number = cast(value, NSNumber.self) {
                // Every Swift integer, `Bool`, `Double`, `Float` and `Decimal` bridges here.
                broken = number.doubleValue.isFinite ? nil : nonFinite
                if naming != unnamed {
                    // The type code `c` or `B` (read in place: no string made to compare).
                    let code = number.objCType
                    let isBool = (code[0] == 0x63 || code[0] == 0x42) && code[1] == 0
                    text = isBool || Swift.type(of: value) == Bool.self ? (number.boolValue ? "true" : "false") : number.stringValue
                }
            } else if let number = cast(value, CGFloat.self), !number.isFinite {
                // Not an `NSNumber` on Linux (a finite one is written as anything else is).
                broken = nonFinite
            } else if json {
                // A `URL`, a `UUID`, an enum: a query writes its description, JSON refuses it.
                broken = ", which JSON cannot represent (only strings, finite numbers, booleans, NSNull, arrays and dictionaries with String keys)"
            }
            if let broken {
                if !lenient {
                    throw failure(at: frames, type: type(of: value), rule: broken, url: url)
                }
            } else if isLeaf, naming != unnamed {
                let text = text ?? String(describing: value)
                leaves.append((name, naming == escaped ? QueryStringEncoder.escape(text) : text))
            }
            truncate(&name, to: mark)
        }
        return deepest
    }

    /// `value` as a `T`, or `nil`: the runtime's cast, one unspecialized copy for every
    /// type the walker asks about (each inline cast compiled its own copy of the value).
    @_optimize(none)
    private static func cast<T>(_ value: Any, _ type: T.Type) -> T? {
        value as? T
    }

    /// The frame of a non-empty dictionary entered when the name was `mark` bytes long.
    private static func frame(_ dictionary: [String: Any], mark: Int) -> Frame {
        let keys = SortedKeys.of(dictionary)
        var values: [Any] = []
        values.reserveCapacity(keys.count)
        for key in keys {
            if let value = dictionary[key] { values.append(value) }
        }
        return Frame(keys, values, mark)
    }

    /// The `.encoding` error of a value of `type` that breaks `rule`, the last child visited
    /// of the last of `frames` (each frame the last child visited of the one before).
    /// Cold: only a refusal calls it.
    @inline(never)
    private static func failure(at frames: [Frame], type: Any.Type, rule: String, url: URL?) -> NetworkError {
        var message = subject(frames)
        if frames.count < maximumDepth {
            // Not too deep (the value was at level `frames.count + 1`; that sentence names no
            // type): told by the depth, not by comparing the rule's text.
            message += " is a "
            message += DecodingDiagnostics.name(of: type)
        }
        message += rule
        return NetworkError.library(.encoding, message, url: url)
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

    /// An encoder's refusal of `value` (`the value at 'stats.ratio' (Double) is invalid: …`),
    /// or, for what swift-foundation's writer says of containers nested 512 deep, `it is
    /// nested deeper than 512 levels…`. Named by its type: the value itself may be a secret
    /// (or the whole body).
    @inline(never)
    static func invalid(_ type: Any.Type, _ codingPath: [any CodingKey], _ debugDescription: String) -> String {
        // The path as the frames of a walk (each at the child it names): one way to word it.
        var path: [Frame] = []
        for key in codingPath {
            let index = key.intValue
            let frame = Frame(index == nil ? [key.stringValue] : [], [], 0)
            frame.next = (index ?? 0) + 1
            path.append(frame)
        }
        if path.isEmpty, debugDescription == "Unable to encode the given top-level value to JSON." {
            return "it" + tooDeep
        }
        var text = subject(path)
        text += " ("
        text += DecodingDiagnostics.name(of: type)
        text += ") is invalid: "
        text += debugDescription
        return text
    }

    /// `the value at 'user.dates[2]'`, or `the top-level value`: the path of the last
    /// child visited in each of `frames`. Keys are joined by dots, indices in brackets. A long key is cut to its first 40 bytes (whole Unicode scalars) and a long path to its
    /// first 8 and last 4 steps, so that a message stays short whatever the caller's keys
    /// (the whole path is in a body's `EncodingError`).
    @inline(never)
    private static func subject(_ path: [Frame]) -> String {
        if path.isEmpty { return "the top-level value" }
        var text = "the value at '"
        for position in path.indices {
            if path.count > 12, position >= 8, position < path.count - 4 {
                if position == 8 { text += "…" }
                continue
            }
            let frame = path[position]
            if frame.keys.isEmpty {
                text += "["
                text += String(frame.next - 1)
                text += "]"
            } else {
                let step = frame.keys[frame.next - 1]
                if position > 0 { text += "." }
                // Counted in bytes: one character may hold a megabyte of combining marks
                // (the cut keeps whole Unicode scalars).
                if step.utf8.count > 40 {
                    text += Array(step.utf8).withUnsafeBufferPointer { bytes in
                        var end = 40
                        while end > 0, bytes[end] & 0xC0 == 0x80 { end -= 1 }  // not inside a scalar
                        return String(decoding: UnsafeBufferPointer(rebasing: bytes[..<end]), as: UTF8.self)
                    }
                    text += "…"
                } else {
                    text += step
                }
            }
        }
        text += "'"
        return text
    }
}
