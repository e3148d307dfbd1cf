#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
/// A coding key made from any string, for containers whose keys are known only at run
/// time (the top level of an envelope: never an array, so never an integer key). A class:
/// one reference has no value witnesses of its own (a struct holding a `String` would).
final class AnyCodingKey: CodingKey {
    let stringValue: String

    /// Always `nil`: keys of an object are names.
    var intValue: Int? { nil }

    init(_ string: String) {
        stringValue = string
    }

    convenience init?(stringValue: String) {
        self.init(stringValue)
    }

    /// `nil`: an envelope is an object, whose keys are never integers. (A convenience
    /// initializer: failing before it delegates, it never allocates a key to free again.)
    convenience init?(intValue: Int) {
        return nil
    }
}
