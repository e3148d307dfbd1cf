#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
/// A coding key made from any string, for containers whose keys are known only at run
/// time (the top level of an envelope: never an array, so never an integer key). One
/// stored `String`, so that the key has no layout of its own to copy.
struct AnyCodingKey: CodingKey {
    let stringValue: String

    /// Always `nil`: keys of an object are names.
    var intValue: Int? { nil }

    init(_ string: String) {
        stringValue = string
    }

    init?(stringValue: String) {
        self.init(stringValue)
    }

    /// `nil`: an envelope is an object, whose keys are never integers.
    init?(intValue: Int) {
        return nil
    }
}
