/// A value kept by reference (a delivered result, metrics), so that the fields of a
/// ``RequestOperation`` have one layout known at compile time, for any `Output`.
///
/// Not `Sendable`: it lives only in fields that a lock guards (the operation's), and is
/// read from there; its value is set once, at init.
@usableFromInline
final class StoredValue<Value> {
    @usableFromInline let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
