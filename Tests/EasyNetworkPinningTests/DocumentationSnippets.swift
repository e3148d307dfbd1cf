import EasyNetwork
import EasyNetworkPinning
import Foundation
import XCTest

/// The Swift blocks of the EasyNetworkPinning catalog, compiled and run as written
/// (DocumentationTests, in EasyNetworkTests, checks each block appears here line for line).
final class DocumentationSnippets: XCTestCase {
    func testTheOverviewInstallsPins() throws {
        let host = HostConfiguration(baseURL: URL(string: "https://api.example.com"))
        // import EasyNetworkPinning
        host.publicKeyPinning = try PublicKeyPinning([
            PinnedHost(
                "api.example.com",
                pins: ["AsCouOfb2JBaDYcWrRwmlqNUmbnkWH5fPCFsyzpAzaU=",   // the key in use
                       "o/88pT3o8CGe7QHsNcyBgbLzgIjvPQqEKB+0Gv4ZsgA="],  // the backup key, offline
                expires: Date(timeIntervalSince1970: 1_893_456_000)       // 2030-01-01
            ),
        ])
        XCTAssertEqual(host.publicKeyPinning?.hosts.first?.pins.count, 2)
    }

    func testTheArticleValidatesAChain() throws {
        let pins = try Fixtures.pins()
        let (leafPin, backupPin) = (pins["rsa-leaf"] ?? "", pins["spare-key"] ?? "")
        let (leafDER, intermediateDER) = (try Fixtures.certificate("rsa-leaf"), try Fixtures.certificate("rsa-intermediate"))
        let pinning = try PublicKeyPinning([PinnedHost("api.example.com", pins: [leafPin, backupPin])])
        let decided = try pinning.validate(certificateChain: [leafDER, intermediateDER], host: "api.example.com")
        XCTAssertEqual(decided?.host, "api.example.com")
    }
}
