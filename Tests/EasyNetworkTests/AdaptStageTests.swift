import EasyNetwork
import EasyNetworkTesting
import EasyNetworkPlugins
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Adapting an attempt: asynchronous adapters in order, each seeing what the one before
/// returned; a refusal fails the request without sending it.
final class AdaptStageTests: ServerTestCase {
    func testAnAdapterCompletingLaterOnAnotherQueueIsWaitedFor() {
        let other = DispatchQueue(label: "signer")
        let host = makeHost()
        host.interceptors = [
            ClosureInterceptor(adaptAsync: { request, _, completion in
                other.asyncAfter(deadline: .now() + 0.1) {
                    var signed = request
                    signed.setValue("late", forHTTPHeaderField: "X-Chain")
                    completion(.success(signed))
                }
            }),
            ClosureInterceptor(adapt: { request, _ in
                var request = request
                request.setValue((request.value(forHTTPHeaderField: "X-Chain") ?? "") + ",sync", forHTTPHeaderField: "X-Chain")
                return request
            }),
        ]
        XCTAssertNotNil(value(of: send(TestRequest("/echo"), host: host)))
        XCTAssertEqual(server.requests(path: "/echo").first?.header("X-Chain"), "late,sync")
    }

    func testAFailingAsyncAdapterFailsTheRequestWithoutSendingIt() {
        let host = makeHost()
        host.interceptors = [ClosureInterceptor(adaptAsync: { _, _, completion in
            DispatchQueue.global().async { completion(.failure(Refused())) }
        })]
        let error = failure(of: send(TestRequest("/echo"), host: host))
        XCTAssertEqual(error?.kind, .invalidRequest)
        XCTAssertTrue(error?.underlyingError is Refused)
        host.interceptors = [ClosureInterceptor(adaptAsync: { _, _, completion in
            DispatchQueue.global().async { completion(.failure(NetworkError(kind: .encoding, message: "no key"))) }
        })]
        XCTAssertEqual(failure(of: send(TestRequest("/echo"), host: host))?.message, "no key")
        XCTAssertEqual(server.requests.count, 0)
    }

    func testCancelWhileAdaptingEndsOnceAsCancelledAndSendsNothing() {
        let host = makeHost()
        let adapting = expectation(description: "adapting")
        let adapted = expectation(description: "adapted")
        host.interceptors = [ClosureInterceptor(adaptAsync: { request, _, completion in
            adapting.fulfill()
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) {
                completion(.success(request))
                adapted.fulfill()
            }
        })]
        let service = EasyNetworkService(host)
        let outcomes = Collector<NetworkError?>()
        let ended = expectation(description: "ended")
        service.request(TestRequest("/echo"), success: { _ in
            outcomes.append(nil)
            ended.fulfill()
        }, failure: { error in
            outcomes.append(error)
            ended.fulfill()
        })
        wait(for: [adapting], timeout: 10)
        service.cancel()
        wait(for: [ended, adapted], timeout: 10)
        Thread.sleep(forTimeInterval: 0.2)
        callbackQueue.sync {}
        XCTAssertEqual(outcomes.count, 1)
        XCTAssertEqual(outcomes.values.first??.isCancelled, true)
        XCTAssertEqual(server.requests.count, 0)
    }
}
