import Foundation

/// The `JSONSerialization` options the library passes (`JSONOptions.sortedKeys`, ...): a
/// name for `JSONSerialization`, whose extension below spells them by their raw values.
/// No type of the core's: a namespace enum would be metadata, a descriptor and an accessor
/// in every program.
package typealias JSONOptions = JSONSerialization

/// The options by their raw values (the same on every platform: `NSJSONWritingSortedKeys`
/// is 1 << 1, the fragment options 1 << 2). Each named option is an imported addressor of
/// its own (a PLT entry, a GOT slot, a relocation and a dynamic symbol);
/// `ResponseHandlingTests` and `EnvelopeTests` read what they write. Constants emitted where
/// they are used: no getter in the core, and no global with a one-time initializer.
extension JSONSerialization {
    /// `.sortedKeys`.
    @_alwaysEmitIntoClient
    package static var sortedKeys: WritingOptions { .init(rawValue: 1 << 1) }
    /// `[.fragmentsAllowed, .sortedKeys]`.
    @_alwaysEmitIntoClient
    package static var fragmentsSortedKeys: WritingOptions { .init(rawValue: 1 << 2 | 1 << 1) }
    /// `.fragmentsAllowed` for reading.
    @_alwaysEmitIntoClient
    package static var readingFragments: ReadingOptions { .init(rawValue: 1 << 2) }
}
