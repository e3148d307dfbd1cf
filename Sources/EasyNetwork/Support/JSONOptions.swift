import Foundation

/// The `JSONSerialization` options the library passes, by their raw values (the same on
/// every platform: `NSJSONWritingSortedKeys` is 1 << 1, the fragment options 1 << 2). Each
/// named option is an imported addressor of its own (a PLT entry, a GOT slot, a relocation
/// and a dynamic symbol); `ResponseHandlingTests` and `EnvelopeTests` read what they write.
/// Constants built where they are used: a stored `static let` would be a global with a
/// one-time initializer each.
package enum JSONOptions {
    /// `.sortedKeys`.
    @inline(__always)
    package static var sortedKeys: JSONSerialization.WritingOptions { .init(rawValue: 1 << 1) }
    /// `[.fragmentsAllowed, .sortedKeys]`.
    @inline(__always)
    package static var fragmentsSortedKeys: JSONSerialization.WritingOptions { .init(rawValue: 1 << 2 | 1 << 1) }
    /// `.fragmentsAllowed` for reading.
    @inline(__always)
    package static var readingFragments: JSONSerialization.ReadingOptions { .init(rawValue: 1 << 2) }
}
