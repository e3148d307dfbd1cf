/// A value kept by reference (a delivered result, metrics), so that the fields of a
/// ``RequestOperation`` have one layout known at compile time, for any `Output`.
///
/// Not generic: one class for every `Output` (a generic one carries a metadata pattern and
/// an instantiation cache); the reader, which knows the type, casts ``value`` back.
/// Not `Sendable`: it lives only in fields that a lock guards (the operation's), and is
/// read from there; its value is set once, at init.
@usableFromInline
final class StoredValue {
    @usableFromInline let value: Any

    init(_ value: Any) {
        self.value = value
    }
}
