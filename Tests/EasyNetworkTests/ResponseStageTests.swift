import EasyNetwork
import EasyNetworkEnvelopes
import EasyNetworkTesting
import EasyNetworkPlugins
import Foundation
import XCTest

/// Mappers, validators and interceptors run after the transport, where a slow one
/// cannot hold up another request's completion or eat into its timeout.
final class ResponseStageTests: ServerTestCase {
    func testSlowMapperDoesNotDelayAnotherRequestOnTheSameHost() {
        let host = makeHost()
        let service = EasyNetworkService(host)
        let mapping = DispatchSemaphore(value: 0)
        let slowDone = expectation(description: "slow request")
        let slowResult = Collector<Result<Int, NetworkError>>()
        service.perform(TestRequest("/echo"), transform: { _ -> Int in
            mapping.signal()
            Thread.sleep(forTimeInterval: 2)
            return 1
        }, completion: { result in
            slowResult.append(result)
            slowDone.fulfill()
        })
        XCTAssertEqual(mapping.wait(timeout: .now() + 10), .success, "the first mapper never started")

        let started = Date()
        let fastDone = expectation(description: "fast request")
        let fastResult = Collector<(Result<Int, NetworkError>, TimeInterval)>()
        service.perform(TestRequest("/echo", timeout: 1), transform: { _ in 2 }, completion: { result in
            fastResult.append((result, Date().timeIntervalSince(started)))
            fastDone.fulfill()
        })
        wait(for: [fastDone], timeout: 10)
        wait(for: [slowDone], timeout: 10)

        XCTAssertEqual(fastResult.count, 1)
        if let (result, elapsed) = fastResult.values.first {
            XCTAssertEqual(try? result.get(), 2, "the fast request failed: \(result)")
            XCTAssertLessThan(elapsed, 1.5, "the fast request waited for the slow mapper")
        }
        XCTAssertEqual(slowResult.count, 1)
        XCTAssertEqual(try? slowResult.values.first?.get(), 1)
    }

    func testSlowInterceptorDoesNotDelayAnotherRequest() {
        let host = makeHost()
        let validating = DispatchSemaphore(value: 0)
        host.interceptors = [ClosureInterceptor(validate: { response, _ in
            if response.request.url?.path == "/delay/0" {
                validating.signal()
                Thread.sleep(forTimeInterval: 2)
            }
        })]
        let service = EasyNetworkService(host)
        let slowDone = expectation(description: "slow request")
        service.perform(TestRequest("/delay/0"), transform: { _ in 1 }, completion: { _ in slowDone.fulfill() })
        XCTAssertEqual(validating.wait(timeout: .now() + 10), .success, "the validator never ran")

        let started = Date()
        let fastDone = expectation(description: "fast request")
        let fastResult = Collector<(Result<Int, NetworkError>, TimeInterval)>()
        service.perform(TestRequest("/echo", timeout: 1), transform: { _ in 2 }, completion: { result in
            fastResult.append((result, Date().timeIntervalSince(started)))
            fastDone.fulfill()
        })
        wait(for: [fastDone, slowDone], timeout: 10)
        if let (result, elapsed) = fastResult.values.first {
            XCTAssertEqual(try? result.get(), 2, "the fast request failed: \(result)")
            XCTAssertLessThan(elapsed, 1.5, "the fast request waited for the slow validator")
        }
    }
    /// The seed's JSON requests skip the hop only while no user code runs after the
    /// transport: a host's envelope rule is user code, so it still runs off the delegate queue.
    func testSlowEnvelopeRuleDoesNotDelayAnotherSeedRequest() {
        let host = makeHost()
        let checking = DispatchSemaphore(value: 0)
        host.envelope = ResponseEnvelope(success: .custom { json in
            if json["delayed"] != nil {
                checking.signal()
                Thread.sleep(forTimeInterval: 2)
            }
            return true
        }, payloadKey: nil)
        let service = EasyNetworkService(host)
        let slowDone = expectation(description: "slow request")
        service.request(TestRequest("/delay/0"), success: { _ in slowDone.fulfill() }, failure: { _ in slowDone.fulfill() })
        XCTAssertEqual(checking.wait(timeout: .now() + 10), .success, "the envelope rule never ran")

        let started = Date()
        let fastDone = expectation(description: "fast request")
        let fastResult = Collector<(Bool, TimeInterval)>()
        service.request(TestRequest("/status/200", timeout: 1), success: { json in
            fastResult.append((json != nil, Date().timeIntervalSince(started)))
            fastDone.fulfill()
        }, failure: { _ in
            fastResult.append((false, Date().timeIntervalSince(started)))
            fastDone.fulfill()
        })
        wait(for: [fastDone, slowDone], timeout: 10)
        if let (succeeded, elapsed) = fastResult.values.first {
            XCTAssertTrue(succeeded, "the fast request failed")
            XCTAssertLessThan(elapsed, 1.5, "the fast request waited for the slow envelope rule")
        }
    }
}
