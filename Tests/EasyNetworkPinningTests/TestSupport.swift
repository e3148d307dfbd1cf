// The package's shared test helpers, and the certificate fixtures of Fixtures/ (made by
// Fixtures/make-fixtures.sh, whose OpenSSL commands also wrote the expected pins).
@_exported import EasyNetworkTestSupport
import Foundation
import XCTest

enum Fixtures {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// The DER bytes of `name` (`rsa-leaf`, `ec-intermediate`, …).
    static func certificate(_ name: String) throws -> Data {
        try Data(contentsOf: folder.appendingPathComponent(name + ".der"))
    }

    /// The DER SubjectPublicKeyInfo of the spare key (a backup pin in no chain).
    static func spareKey() throws -> Data {
        try Data(contentsOf: folder.appendingPathComponent("spare-key.spki.der"))
    }

    /// The pins OpenSSL computed, by fixture name.
    static func pins() throws -> [String: String] {
        let text = try String(contentsOf: folder.appendingPathComponent("pins.txt"), encoding: .utf8)
        var pins: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2 { pins[String(parts[0])] = String(parts[1]) }
        }
        return pins
    }

    /// A chain, leaf first: `rsa` or `ec`.
    static func chain(_ kind: String) throws -> [Data] {
        try ["leaf", "intermediate", "root"].map { try certificate(kind + "-" + $0) }
    }
}

/// A small deterministic generator (SplitMix64), so a fuzz failure can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
