/// A value kept by reference (a delivered result, metrics), so that the fields of a
/// ``RequestOperation`` have one layout known at compile time, for any `Output`.
final class StoredValue<Value>: @unchecked Sendable {
    // Written once, at init, and only read afterwards; a result's `Output` is handed to
    // the callback queue as the operation's callbacks always were.
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
