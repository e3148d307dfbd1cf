import Foundation

/// The `JSONSerialization` options the library passes, by their raw values (the same on
/// every platform: `NSJSONWritingSortedKeys` is 1 << 1, the fragment options 1 << 2). Each
/// named option is an imported addressor of its own (a PLT entry, a GOT slot, a relocation
/// and a dynamic symbol); `ResponseHandlingTests` and `EnvelopeTests` read what they write.
package enum JSONOptions {
    /// `.sortedKeys`.
    package static let sortedKeys = JSONSerialization.WritingOptions(rawValue: 1 << 1)
    /// `[.fragmentsAllowed, .sortedKeys]`.
    package static let fragmentsSortedKeys = JSONSerialization.WritingOptions(rawValue: 1 << 2 | 1 << 1)
    /// `.fragmentsAllowed` for reading.
    package static let readingFragments = JSONSerialization.ReadingOptions(rawValue: 1 << 2)
}
