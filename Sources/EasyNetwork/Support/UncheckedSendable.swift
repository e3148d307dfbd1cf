/// Carries a value across a queue hop that the compiler cannot prove safe.
///
/// Used only where the library hands a value from the thread that made it to the
/// callback queue and never touches it again (e.g. the `Any?` of a decoded JSON body).
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
