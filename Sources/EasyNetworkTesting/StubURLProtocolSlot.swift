import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Gives every ``HTTPStubs`` set its own `URLProtocol` subclass.
///
/// A URL protocol cannot see which session a request came from (neither `httpAdditionalHeaders` nor any
/// other configuration value reaches `URLProtocol.request`, on Linux or on Darwin). What a session does
/// control is its `protocolClasses`, so each set's configuration lists a distinct class. The classes are
/// `SlottedStubURLProtocol<N>` where `N` spells the set ID as a type in binary
/// (`StubSlotOne`, `StubSlotDouble<…>`, `StubSlotDoublePlusOne<…>`), so any number of sets can be made.
enum StubURLProtocolSlot {
    /// The protocol class that serves the set with ID `id` (`id` ≥ 1).
    static func protocolClass(forSetID id: Int) -> StubURLProtocol.Type {
        protocolClass(number(max(1, id)))
    }

    private static func number(_ value: Int) -> any StubSlotNumber.Type {
        guard value > 1 else { return StubSlotOne.self }
        let half = number(value / 2)
        return value % 2 == 0 ? doubled(half) : doubledPlusOne(half)
    }

    private static func doubled<Half: StubSlotNumber>(_: Half.Type) -> any StubSlotNumber.Type {
        StubSlotDouble<Half>.self
    }

    private static func doubledPlusOne<Half: StubSlotNumber>(_: Half.Type) -> any StubSlotNumber.Type {
        StubSlotDoublePlusOne<Half>.self
    }

    private static func protocolClass<Number: StubSlotNumber>(_: Number.Type) -> StubURLProtocol.Type {
        SlottedStubURLProtocol<Number>.self
    }
}

/// A positive integer written as a type.
protocol StubSlotNumber {
    /// The integer.
    static var value: Int { get }
}

/// The number 1.
enum StubSlotOne: StubSlotNumber {
    static var value: Int { 1 }
}

/// The number `2 × Half`.
enum StubSlotDouble<Half: StubSlotNumber>: StubSlotNumber {
    static var value: Int { Half.value * 2 }
}

/// The number `2 × Half + 1`.
enum StubSlotDoublePlusOne<Half: StubSlotNumber>: StubSlotNumber {
    static var value: Int { Half.value * 2 + 1 }
}

/// The ``StubURLProtocol`` subclass bound to the set whose ID is `Number.value`.
final class SlottedStubURLProtocol<Number: StubSlotNumber>: StubURLProtocol {
    override class var stubSetID: Int? { Number.value }
}
