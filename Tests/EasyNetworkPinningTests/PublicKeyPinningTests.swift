@testable import EasyNetworkPinning
import Foundation
import XCTest

/// The decision on a certificate chain, in plain Swift on every platform: RSA and EC
/// chains, leaf, intermediate and root pins, a wrong pin, an expired pin set, subdomain
/// rules, malformed certificates.
final class PublicKeyPinningTests: XCTestCase {
    private var pins: [String: String] = [:]

    override func setUpWithError() throws {
        pins = try Fixtures.pins()
    }

    private func pin(_ name: String) -> String {
        pins[name] ?? ""
    }

    private func pinning(_ entries: PinnedHost...) throws -> PublicKeyPinning {
        try PublicKeyPinning(entries)
    }

    /// The reason `validate` refuses with.
    private func refusal(_ pinning: PublicKeyPinning, _ chain: [Data], host: String = "api.example.com", at date: Date = Date(),
                         file: StaticString = #filePath, line: UInt = #line) -> PublicKeyPinningError? {
        do {
            let entry = try pinning.validate(certificateChain: chain, host: host, at: date)
            XCTFail("passed (\(String(describing: entry)))", file: file, line: line)
            return nil
        } catch let error as PublicKeyPinningError {
            return error
        } catch {
            XCTFail("\(error)", file: file, line: line)
            return nil
        }
    }

    func testALeafPinMatchesRSAAndEC() throws {
        for kind in ["rsa", "ec"] {
            let pinning = try pinning(PinnedHost("api.example.com", pins: [pin(kind + "-leaf"), pin("spare-key")]))
            XCTAssertEqual(try pinning.validate(certificateChain: Fixtures.chain(kind), host: "api.example.com")?.host, "api.example.com", kind)
        }
    }

    func testAnIntermediateOrRootPinMatchesAnywhereInTheChain() throws {
        for name in ["rsa-intermediate", "rsa-root", "ec-intermediate", "ec-root"] {
            let pinning = try pinning(PinnedHost("api.example.com", pins: [pin(name), pin("spare-key")]))
            let kind = String(name.prefix { $0 != "-" })
            XCTAssertNotNil(try pinning.validate(certificateChain: Fixtures.chain(kind), host: "api.example.com"), name)
        }
    }

    func testTheBackupPinAloneMatchesAChainWithTheBackupKey() throws {
        // Rolling keys: the apps in use pin [old, new]; the server moves to the new key.
        let pinning = try pinning(PinnedHost("api.example.com", pins: [pin("rsa-leaf"), pin("ec-leaf")]))
        XCTAssertNotNil(try pinning.validate(certificateChain: Fixtures.chain("ec"), host: "api.example.com"))
        XCTAssertNotNil(try pinning.validate(certificateChain: Fixtures.chain("rsa"), host: "api.example.com"))
    }

    func testAWrongPinRefusesTheChainAndNamesWhatItServed() throws {
        let pinning = try pinning(PinnedHost("api.example.com", pins: [pin("ec-leaf"), pin("spare-key")]))
        let error = refusal(pinning, try Fixtures.chain("rsa"))
        XCTAssertEqual(error?.reason, .noPinMatched)
        XCTAssertEqual(error?.host, "api.example.com")
        XCTAssertEqual(error?.servedPins, [pin("rsa-leaf"), pin("rsa-intermediate"), pin("rsa-root")])
        XCTAssertEqual(error?.message, "none of the 3 certificates of the verified chain has a pinned key")
        XCTAssertTrue(error?.description.hasPrefix("public-key pinning refused api.example.com: ") ?? false)
    }

    func testAnExpiredPinSetNoLongerPins() throws {
        let now = Date()
        let expired = try pinning(PinnedHost("api.example.com", pins: [pin("ec-leaf"), pin("spare-key")], expires: now.addingTimeInterval(-1)))
        XCTAssertNil(try expired.validate(certificateChain: Fixtures.chain("rsa"), host: "api.example.com", at: now), "not pinned: passes")
        XCTAssertNil(expired.pinnedHost(for: "api.example.com", at: now))
        let live = try pinning(PinnedHost("api.example.com", pins: [pin("ec-leaf"), pin("spare-key")], expires: now.addingTimeInterval(60)))
        XCTAssertEqual(refusal(live, try Fixtures.chain("rsa"), at: now)?.reason, .noPinMatched, "until it expires, it pins")
        XCTAssertNil(try live.validate(certificateChain: Fixtures.chain("rsa"), host: "api.example.com", at: now.addingTimeInterval(60)))
    }

    func testASubdomainRuleCoversSubdomainsOnly() throws {
        let pinning = try pinning(PinnedHost("example.com", pins: [pin("rsa-leaf"), pin("spare-key")], includesSubdomains: true))
        for host in ["example.com", "api.example.com", "a.b.example.com", "API.EXAMPLE.COM."] {
            XCTAssertEqual(refusal(pinning, try Fixtures.chain("ec"), host: host)?.reason, .noPinMatched, host)
        }
        for host in ["badexample.com", "example.com.evil.net", "example.org", "com"] {
            XCTAssertNil(try pinning.validate(certificateChain: Fixtures.chain("ec"), host: host), host)
        }
        let exact = try self.pinning(PinnedHost("example.com", pins: [pin("rsa-leaf"), pin("spare-key")]))
        XCTAssertNil(try exact.validate(certificateChain: Fixtures.chain("ec"), host: "api.example.com"), "no subdomains by default")
    }

    func testTheMostSpecificEntryDecides() throws {
        let now = Date()
        let pinning = try pinning(
            PinnedHost("example.com", pins: [pin("rsa-leaf"), pin("spare-key")], includesSubdomains: true),
            PinnedHost("api.example.com", pins: [pin("ec-leaf"), pin("spare-key")]),
            PinnedHost("old.example.com", pins: [pin("ec-leaf"), pin("spare-key")], expires: now.addingTimeInterval(-1))
        )
        XCTAssertEqual(pinning.pinnedHost(for: "api.example.com", at: now)?.host, "api.example.com")
        XCTAssertNotNil(try pinning.validate(certificateChain: Fixtures.chain("ec"), host: "api.example.com", at: now))
        XCTAssertEqual(pinning.pinnedHost(for: "www.example.com", at: now)?.host, "example.com")
        XCTAssertNil(pinning.pinnedHost(for: "old.example.com", at: now), "its own entry expired: not pinned")
        XCTAssertEqual(pinning.pinnedHost(for: "x.api.example.com", at: now)?.host, "example.com", "api's entry has no subdomain rule")
    }

    func testMalformedCertificatesAreATypedFailure() throws {
        let pinning = try pinning(PinnedHost("api.example.com", pins: [pin("rsa-leaf"), pin("spare-key")]))
        let leaf = try Fixtures.certificate("rsa-leaf")
        let truncated = refusal(pinning, [leaf.prefix(100)])
        XCTAssertEqual(truncated?.reason, .malformedCertificate)
        XCTAssertEqual(truncated?.message, "no certificate of the chain could be read (unreadable: certificate 0: the certificate claims 856 bytes, 96 are left)")
        XCTAssertEqual(refusal(pinning, [Data("not a certificate".utf8)])?.reason, .malformedCertificate)
        XCTAssertEqual(refusal(pinning, [])?.message, "the server presented no certificate")
        let mixed = refusal(pinning, [Data([0x30]), try Fixtures.certificate("ec-leaf")])
        XCTAssertEqual(mixed?.reason, .noPinMatched)
        XCTAssertEqual(mixed?.servedPins, [pin("ec-leaf")])
        // An unreadable certificate never matches, but does not hide one that does.
        XCTAssertNotNil(try pinning.validate(certificateChain: [Data([0x30]), leaf], host: "api.example.com"))
    }

    func testTheSameHostTwiceIsRefused() throws {
        let entry = try PinnedHost("api.example.com", pins: [pin("rsa-leaf"), pin("spare-key")])
        XCTAssertThrowsError(try PublicKeyPinning([entry, entry])) { error in
            XCTAssertEqual((error as? PublicKeyPinningError)?.reason, .invalidConfiguration)
        }
    }

    func testPinOfACertificateIsOpenSSLs() throws {
        XCTAssertEqual(try PublicKeyPinning.pin(ofCertificate: Fixtures.certificate("ec-root")), pin("ec-root"))
        XCTAssertThrowsError(try PublicKeyPinning.pin(ofCertificate: Data([1, 2, 3]))) { error in
            XCTAssertEqual((error as? PublicKeyPinningError)?.reason, .malformedCertificate)
        }
    }

    // MARK: Messages (issue 29)

    func testAnErrorWithNoHostReadsAsOneSentenceWithoutADanglingColon() throws {
        let leaf = try Fixtures.certificate("rsa-leaf")
        XCTAssertThrowsError(try PublicKeyPinning.pin(ofCertificate: leaf.prefix(100))) { error in
            let refused = error as? PublicKeyPinningError
            XCTAssertEqual(refused?.host, "")
            XCTAssertEqual(refused?.description, "public-key pinning: the certificate claims 856 bytes, 96 are left")
        }
        XCTAssertThrowsError(try PinnedHost("", pins: [pin("rsa-leaf"), pin("spare-key")])) { error in
            let description = (error as? PublicKeyPinningError)?.description ?? ""
            XCTAssertFalse(description.contains(" :"), description)
            XCTAssertTrue(description.hasPrefix("public-key pinning: "), description)
        }
        // With a host, the host is named.
        let pinning = try pinning(PinnedHost("api.example.com", pins: [pin("ec-leaf"), pin("spare-key")]))
        XCTAssertTrue(refusal(pinning, [leaf.prefix(100)])?.description.hasPrefix("public-key pinning refused api.example.com: ") ?? false)
    }

    func testAThousandCertificateChainGivesABoundedDescription() throws {
        let pinning = try pinning(PinnedHost("api.example.com", pins: [pin("ec-leaf"), pin("spare-key")]))
        let rsa = try Fixtures.chain("rsa")
        let chain = (0..<1_000).map { rsa[$0 % 3] }
        let error = try XCTUnwrap(refusal(pinning, chain))
        XCTAssertEqual(error.reason, .noPinMatched)
        XCTAssertEqual(error.servedPins.count, 1_000, "the property keeps every pin, for diagnosis")
        XCTAssertLessThan(error.description.count, 400, error.description)
        XCTAssertTrue(error.description.contains(pin("rsa-leaf") + ", " + pin("rsa-intermediate") + ", " + pin("rsa-root") + " and 997 more"), error.description)
        XCTAssertTrue(error.description.hasSuffix(")"), error.description)
        // As the request's error (its message is the description).
        let failure = error.networkError(url: URL(string: "https://api.example.com/x"))
        XCTAssertLessThan(failure.localizedDescription.count, 500, failure.localizedDescription)
        XCTAssertLessThan((failure as NSError).description.count, 2_000)
        // Synthesised pins, every one different.
        let synthesised = PublicKeyPinningError(.noPinMatched, host: "api.example.com", message: "none matched",
                                                servedPins: (0..<1_000).map { String(format: "pin-%04d", $0) })
        XCTAssertEqual(synthesised.description,
                       "public-key pinning refused api.example.com: none matched (the chain's pins, leaf first: pin-0000, pin-0001, pin-0002 and 997 more)")
        let four = PublicKeyPinningError(.noPinMatched, host: "h", message: "m", servedPins: ["a", "b", "c", "d"])
        XCTAssertEqual(four.description, "public-key pinning refused h: m (the chain's pins, leaf first: a, b, c and 1 more)")
        let three = PublicKeyPinningError(.noPinMatched, host: "h", message: "m", servedPins: ["a", "b", "c"])
        XCTAssertEqual(three.description, "public-key pinning refused h: m (the chain's pins, leaf first: a, b, c)")
    }

    func testAThousandUnreadableCertificatesGiveABoundedMessage() throws {
        let pinning = try pinning(PinnedHost("api.example.com", pins: [pin("ec-leaf"), pin("spare-key")]))
        let garbage = Array(repeating: Data([0x30]), count: 1_000)
        let unreadable = try XCTUnwrap(refusal(pinning, garbage))
        XCTAssertEqual(unreadable.reason, .malformedCertificate)
        XCTAssertLessThan(unreadable.description.count, 400, unreadable.description)
        XCTAssertTrue(unreadable.message.contains("and 997 more"), unreadable.message)
        // Unreadable ones next to a readable one that matches nothing.
        let mixed = try XCTUnwrap(refusal(pinning, garbage + [try Fixtures.certificate("rsa-leaf")]))
        XCTAssertEqual(mixed.reason, .noPinMatched)
        XCTAssertLessThan(mixed.description.count, 500, mixed.description)
        XCTAssertTrue(mixed.message.hasPrefix("none of the 1001 certificates of the verified chain has a pinned key (unreadable: certificate 0: "), mixed.message)
    }

    func testLinuxCannotEnforce() {
        #if canImport(FoundationNetworking)
        XCTAssertFalse(PublicKeyPinning.isEnforceable)
        #else
        XCTAssertTrue(PublicKeyPinning.isEnforceable)
        #endif
    }
}
