import EasyNetwork
@testable import EasyNetworkRetry
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What an attempt says about its host: the budget counts 5xx, 408, 429 and transport
/// failures; the breaker only outages; a device offline or a cancellation says nothing.
final class HostSignalTests: XCTestCase {
    private let url = URL(string: "http://127.0.0.1/x")!

    private func outcome(status: Int? = nil, error: (any Error)? = nil) -> TransportOutcome {
        TransportOutcome(
            request: URLRequest(url: url),
            response: status.flatMap { HTTPURLResponse(url: url, statusCode: $0, httpVersion: nil, headerFields: nil) },
            error: error
        )
    }

    func testStatusesAndTransportErrorsAreSorted() {
        for status in [200, 204, 304, 400, 401, 404, 422] {
            XCTAssertEqual(TestSignal(RetryEngine.signal(of: outcome(status: status))), .success, "\(status)")
        }
        for status in [408, 429, 500, 502, 503, 504] {
            XCTAssertEqual(TestSignal(RetryEngine.signal(of: outcome(status: status))), .failure(.status(status)), "\(status)")
        }
        XCTAssertEqual(TestSignal(RetryEngine.signal(of: outcome(error: URLError(.timedOut)))), .failure(.transport(.timedOut)))
        XCTAssertEqual(TestSignal(RetryEngine.signal(of: outcome(error: URLError(.cannotConnectToHost)))), .failure(.transport(.cannotConnectToHost)))
        XCTAssertEqual(TestSignal(RetryEngine.signal(of: outcome(error: URLError(.networkConnectionLost)))), .failure(.transport(.networkConnectionLost)))
        for offline in [URLError.Code.notConnectedToInternet, .cancelled, .dataNotAllowed, .cannotFindHost, .dnsLookupFailed,
                        .internationalRoamingOff, .callIsActive, .userCancelledAuthentication, .badURL, .unsupportedURL] {
            XCTAssertEqual(TestSignal(RetryEngine.signal(of: outcome(error: URLError(offline)))), TestSignal.none, "\(offline.rawValue)")
        }
        XCTAssertEqual(TestSignal(RetryEngine.signal(of: outcome())), TestSignal.none, "no response, no error")
        let typed = NetworkError(kind: .unacceptableStatus, statusCode: 503)
        XCTAssertEqual(TestSignal(RetryEngine.signal(of: outcome(error: typed))), .failure(.status(503)), "a download's typed failure")
    }

    func testOnlyOutagesCountForTheBreaker() {
        XCTAssertTrue(RetryEngine.isOutage((500, nil)))
        XCTAssertTrue(RetryEngine.isOutage((nil, .timedOut)))
        XCTAssertFalse(RetryEngine.isOutage((429, nil)))
        XCTAssertFalse(RetryEngine.isOutage((408, nil)))
    }
}
