@testable import EasyNetwork
import EasyNetworkFeatures
import Foundation
import XCTest

/// A host keeps its installed features in their order, one of each type: what
/// `HostConfiguration.setFeature(_:as:)` (`EasyNetworkFeatures`) installs, replaces and removes.
final class HostFeatureTests: XCTestCase {
    private final class Early: HostFeature {
        static var order: Int { 0 }
        func plugIn(for request: any BaseAPIRequest, settings: HostSettings, service: EasyNetworkService) -> (any RequestPlugIn)? { nil }
    }

    private final class Middle: HostFeature {
        static var order: Int { 10 }
        let pause: TimeInterval?
        init(pause: TimeInterval? = nil) { self.pause = pause }
        func plugIn(for request: any BaseAPIRequest, settings: HostSettings, service: EasyNetworkService) -> (any RequestPlugIn)? { nil }
        var sendingPause: TimeInterval? { pause }
    }

    private final class Late: HostFeature {
        static var order: Int { 20 }
        let pause: TimeInterval?
        init(pause: TimeInterval? = nil) { self.pause = pause }
        func plugIn(for request: any BaseAPIRequest, settings: HostSettings, service: EasyNetworkService) -> (any RequestPlugIn)? { nil }
        var sendingPause: TimeInterval? { pause }
    }

    private func installed(_ host: HostConfiguration) -> [ObjectIdentifier] {
        host.snapshot().features.map { ObjectIdentifier($0) }
    }

    func testFeaturesAreKeptInTheirOrderWhateverTheOrderOfInstallation() {
        let host = HostConfiguration(baseURL: nil)
        let late = Late(), early = Early(), middle = Middle()
        host.setFeature(late, as: Late.self)
        host.setFeature(early, as: Early.self)
        host.setFeature(middle, as: Middle.self)
        XCTAssertEqual(installed(host), [ObjectIdentifier(early), ObjectIdentifier(middle), ObjectIdentifier(late)])
        XCTAssertTrue(host.feature(Middle.self) === middle)
    }

    func testSettingAFeatureReplacesTheOneOfItsTypeInPlace() {
        let host = HostConfiguration(baseURL: nil)
        let early = Early(), middle = Middle(), late = Late(), newer = Middle()
        host.setFeature(early, as: Early.self)
        host.setFeature(middle, as: Middle.self)
        host.setFeature(late, as: Late.self)
        host.setFeature(newer, as: Middle.self)
        XCTAssertEqual(installed(host), [ObjectIdentifier(early), ObjectIdentifier(newer), ObjectIdentifier(late)])
        XCTAssertTrue(host.feature(Middle.self) === newer)
    }

    func testSettingNilRemovesOnlyTheFeatureOfThatType() {
        let host = HostConfiguration(baseURL: nil)
        let early = Early(), middle = Middle(), late = Late()
        host.setFeature(middle, as: Middle.self)
        host.setFeature(early, as: Early.self)
        host.setFeature(late, as: Late.self)
        host.setFeature(nil, as: Middle.self)
        XCTAssertEqual(installed(host), [ObjectIdentifier(early), ObjectIdentifier(late)])
        XCTAssertNil(host.feature(Middle.self))
        host.setFeature(nil, as: Middle.self)
        XCTAssertEqual(installed(host), [ObjectIdentifier(early), ObjectIdentifier(late)], "removing an absent feature changes nothing")
    }

    func testAFeatureInstalledLaterSeesNoChangeInARequestsSettingsTakenBefore() {
        let host = HostConfiguration(baseURL: nil)
        let before = host.snapshot()
        host.setFeature(Early(), as: Early.self)
        XCTAssertTrue(before.features.isEmpty)
        XCTAssertEqual(host.snapshot().features.count, 1)
    }

    func testTheSendingPauseIsTheLongestOfTheFeatures() {
        let host = HostConfiguration(baseURL: nil)
        XCTAssertNil(host.sendingPause)
        host.setFeature(Early(), as: Early.self)
        XCTAssertNil(host.sendingPause, "a feature without a pause")
        host.setFeature(Middle(pause: 3), as: Middle.self)
        host.setFeature(Late(pause: 7), as: Late.self)
        XCTAssertEqual(host.sendingPause, 7)
        host.setFeature(Late(pause: nil), as: Late.self)
        XCTAssertEqual(host.sendingPause, 3)
    }
}
