import EasyNetwork
import EasyNetworkEnvelopes
import EasyNetworkCache
import EasyNetworkPlugins
import EasyNetworkTesting
import Foundation
import XCTest

/// What the cache stage stores and under which key (issue 12, item 6): only responses that
/// passed validation and mapping, keyed on the credentials sent and the headers `Vary` names.
final class CacheStageTests: CacheTestCase {
    private func fetchUser(_ request: CachedUserGet, host: HostConfiguration, events: Collector<String>? = nil) -> Result<[String: String], NetworkError>? {
        let op = RequestOperation(request: request, configuration: host, responseDecoder: request.responseDecoder)
        op.onCachedValue = { events?.append("cached \($0["user"] ?? "-")") }
        op.success = { events?.append("network \($0["user"] ?? "-")") }
        let done = expectation(description: "fetch")
        op.completion = { _ in done.fulfill() }
        queue.addOperation(op)
        wait(for: [done], timeout: 5)
        return op.result
    }

    /// Answers with the user named by the request's Authorization (or `anonymous`).
    private func routeMe(headers: [String: String] = [:]) {
        server.route("GET", "/me") { request in
            let user = request.header("Authorization").map { String($0.dropFirst("Bearer ".count)) } ?? "anonymous"
            return .json(#"{"user": "\#(user)"}"#, headers: headers)
        }
    }

    func testABusinessFailureOnHTTP200IsNotStored() throws {
        let failing = CacheRouteSwitch(true)
        server.route("GET", "/doc") { _ in
            failing.isOn ? .json(#"{"code": 7, "msg": "maintenance"}"#) : .json(#"{"code": 0, "data": {"version": 2}}"#)
        }
        let host = self.host()
        host.envelope = .codeEquals(0)
        let first = fetch(CachedGet(api: "/doc", policy: .cacheElseNetwork(maxAge: 60)), host: host)
        XCTAssertEqual(first.flatMap { try? $0.get() }, nil, "the envelope says failure")
        XCTAssertEqual(cache.totalBytes, 0, "a business failure is not stored")
        failing.isOn = false
        XCTAssertEqual(try fetch(CachedGet(api: "/doc", policy: .cacheElseNetwork(maxAge: 60)), host: host)?.get(), ["version": 2])
        XCTAssertEqual(server.requests(path: "/doc").count, 2, "the failure was not served again")
    }

    func testAResponseWhoseMappingThrewIsNotStored() throws {
        let broken = CacheRouteSwitch(true)
        server.route("GET", "/doc") { _ in
            broken.isOn ? .json(#"{"version": "not a number"}"#) : .json(#"{"version": 3}"#)
        }
        let host = self.host()
        XCTAssertThrowsError(try fetch(CachedGet(api: "/doc", policy: .cacheElseNetwork(maxAge: 60)), host: host)?.get())
        XCTAssertEqual(cache.totalBytes, 0, "a response that did not map is not stored")
        broken.isOn = false
        XCTAssertEqual(try fetch(CachedGet(api: "/doc", policy: .cacheElseNetwork(maxAge: 60)), host: host)?.get(), ["version": 3])
        XCTAssertEqual(server.requests(path: "/doc").count, 2)
    }

    func testAResponseAnInterceptorRejectedIsNotStored() throws {
        routeMe()
        let host = self.host()
        let rejecting = ClosureInterceptor(validate: { _, _ in throw URLError(.cannotParseResponse) })
        let rejected = fetchUser(CachedUserGet(api: "/me", policy: .cacheElseNetwork(maxAge: 60), extraInterceptors: [rejecting]), host: host)
        XCTAssertThrowsError(try rejected?.get())
        XCTAssertEqual(cache.totalBytes, 0, "a response an interceptor rejected is not stored")
        let accepted = fetchUser(CachedUserGet(api: "/me", policy: .cacheElseNetwork(maxAge: 60), extraInterceptors: [ClosureInterceptor()]), host: host)
        XCTAssertEqual(try accepted?.get(), ["user": "anonymous"])
        XCTAssertEqual(server.requests(path: "/me").count, 2, "the rejected response was not served")
    }

    func testPerRequestAuthorizationKeepsUsersApart() throws {
        routeMe()
        let host = self.host()
        let alice = CachedUserGet(api: "/me", policy: .cacheElseNetwork(maxAge: 60), extraHeaders: ["Authorization": "Bearer alice"])
        let bob = CachedUserGet(api: "/me", policy: .cacheElseNetwork(maxAge: 60), extraHeaders: ["Authorization": "Bearer bob"])
        XCTAssertEqual(try fetchUser(alice, host: host)?.get(), ["user": "alice"])
        XCTAssertEqual(try fetchUser(bob, host: host)?.get(), ["user": "bob"], "bob never sees alice's data")
        XCTAssertEqual(try fetchUser(alice, host: host)?.get(), ["user": "alice"])
        XCTAssertEqual(server.requests(path: "/me").count, 2, "each user's copy is served to that user")
    }

    func testATokenReplacedWithSetTokenIsANewUser() throws {
        routeMe()
        let host = self.host()
        let authenticator = TokenAuthenticator(token: "alice") { done in done(.failure(URLError(.userAuthenticationRequired))) }
        host.authenticator = authenticator
        let me = CachedUserGet(api: "/me", policy: .cacheElseNetwork(maxAge: 60))
        XCTAssertEqual(try fetchUser(me, host: host)?.get(), ["user": "alice"])
        authenticator.setToken("bob")
        XCTAssertEqual(try fetchUser(me, host: host)?.get(), ["user": "bob"], "after setToken the cache of the old token is not served")
    }

    /// A guard for the fix (passes on the old code too): a response to a request replayed
    /// after a refresh is stored under the token it was sent with, not the stale one.
    func testAResponseAfterARefreshIsStoredUnderTheNewToken() throws {
        server.route("GET", "/me") { request in
            let user = request.header("Authorization").map { String($0.dropFirst("Bearer ".count)) } ?? "anonymous"
            return user == "stale" ? .status(401) : .json(#"{"user": "\#(user)"}"#)
        }
        let host = self.host()
        host.authenticator = TokenAuthenticator(token: "stale") { done in done(.success("fresh")) }
        let me = CachedUserGet(api: "/me", policy: .cacheElseNetwork(maxAge: 60))
        XCTAssertEqual(try fetchUser(me, host: host)?.get(), ["user": "fresh"])
        XCTAssertEqual(try fetchUser(me, host: host)?.get(), ["user": "fresh"])
        XCTAssertEqual(server.requests(path: "/me").count, 2, "the 401, then the replay; the second fetch is answered from the cache")
    }

    func testCacheThenNetworkNeverShowsAnotherUsersCopy() {
        routeMe()
        let host = self.host()
        let authenticator = TokenAuthenticator(token: "alice") { done in done(.failure(URLError(.userAuthenticationRequired))) }
        host.authenticator = authenticator
        let me = CachedUserGet(api: "/me", policy: .cacheThenNetwork)
        let events = Collector<String>()
        _ = fetchUser(me, host: host, events: events)
        authenticator.setToken("bob")
        _ = fetchUser(me, host: host, events: events)
        authenticator.setToken("alice")
        _ = fetchUser(me, host: host, events: events)
        XCTAssertEqual(events.values, ["network alice", "network bob", "cached alice", "network alice"])
    }

    func testCredentialsAreNeverWrittenToDiskInClear() throws {
        server.route("GET", "/profile") { _ in .json(#"{"user": "someone"}"#, headers: ["Set-Cookie": "session=s3cr3t-token-0123456789", "Vary": "Authorization, Cookie"]) }
        let host = self.host()
        let secret = "s3cr3t-token-0123456789"
        _ = fetchUser(CachedUserGet(api: "/profile", policy: .cacheElseNetwork(maxAge: 60), extraHeaders: ["Authorization": "Bearer \(secret)", "Cookie": "session=\(secret)"]), host: host)
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
        XCTAssertEqual(files.count, 1)
        for file in files {
            let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
            XCTAssertFalse(text.contains(secret), "the entry holds the credential in clear")
        }
    }

    func testVaryNamesTheRequestHeadersAStoredResponseDependsOn() throws {
        server.route("GET", "/greeting") { request in
            let language = request.header("Accept-Language") ?? "none"
            return .json(#"{"user": "\#(language)"}"#, headers: ["Vary": "Accept-Language"])
        }
        let host = self.host()
        func greeting(_ language: String) -> CachedUserGet {
            CachedUserGet(api: "/greeting", policy: .cacheElseNetwork(maxAge: 60), extraHeaders: ["Accept-Language": language])
        }
        XCTAssertEqual(try fetchUser(greeting("en"), host: host)?.get(), ["user": "en"])
        XCTAssertEqual(try fetchUser(greeting("en"), host: host)?.get(), ["user": "en"])
        XCTAssertEqual(server.requests(path: "/greeting").count, 1)
        XCTAssertEqual(try fetchUser(greeting("de"), host: host)?.get(), ["user": "de"], "a response that varies on Accept-Language is not served for another language")
    }

    func testVaryStarIsNeverStored() {
        server.route("GET", "/any") { _ in .json(#"{"user": "x"}"#, headers: ["Vary": "*"]) }
        let host = self.host()
        _ = fetchUser(CachedUserGet(api: "/any", policy: .cacheElseNetwork(maxAge: 60)), host: host)
        _ = fetchUser(CachedUserGet(api: "/any", policy: .cacheElseNetwork(maxAge: 60)), host: host)
        XCTAssertEqual(server.requests(path: "/any").count, 2)
        XCTAssertEqual(cache.totalBytes, 0)
    }

    func testPrivateIsStoredOnlyUnderACredential() throws {
        routeMe(headers: ["Cache-Control": "private, max-age=60"])
        let host = self.host()
        _ = fetchUser(CachedUserGet(api: "/me", policy: .cacheElseNetwork(maxAge: 60)), host: host)
        XCTAssertEqual(cache.totalBytes, 0, "a private response to a request without a credential is not stored")
        let alice = CachedUserGet(api: "/me", policy: .cacheElseNetwork(maxAge: 60), extraHeaders: ["Authorization": "Bearer alice"])
        XCTAssertEqual(try fetchUser(alice, host: host)?.get(), ["user": "alice"])
        XCTAssertEqual(try fetchUser(alice, host: host)?.get(), ["user": "alice"])
        XCTAssertEqual(server.requests(path: "/me").count, 2, "a private response is kept for the credential it was sent with")
    }

    func testNoStoreOnTheRequestOrTheResponseIsHonoured() {
        routeMe(headers: ["Cache-Control": "max-age=60, No-Store"])
        server.route("GET", "/plain") { _ in .json(#"{"user": "x"}"#) }
        let host = self.host()
        _ = fetchUser(CachedUserGet(api: "/me", policy: .cacheElseNetwork(maxAge: 60)), host: host)
        _ = fetchUser(CachedUserGet(api: "/plain", policy: .cacheElseNetwork(maxAge: 60), extraHeaders: ["Cache-Control": "no-store"]), host: host)
        XCTAssertEqual(cache.totalBytes, 0)
    }

    func testTheDefaultFolderIsNamedAfterTheCallingModule() {
        let caches = ResponseCache(name: "probe").directory.deletingLastPathComponent().standardizedFileURL
        XCTAssertEqual(ResponseCache().directory.standardizedFileURL, caches.appendingPathComponent("EasyNetworkCacheTests").standardizedFileURL, "an unnamed cache is named after the SDK that makes it")
        XCTAssertNotEqual(ResponseCache(name: "sdk-one").directory, ResponseCache(name: "sdk-two").directory)
        for name in ["../escape", "a/b", "..", "", "/"] {
            let directory = ResponseCache(name: name).directory.standardizedFileURL
            XCTAssertEqual(directory.deletingLastPathComponent(), caches, "\(name) stays inside the EasyNetwork folder")
            XCTAssertNotEqual(directory, caches)
        }
        XCTAssertNotEqual(ResponseCache(name: "a/b").directory, ResponseCache(name: "a_b").directory)
    }

    func testAFolderNameKeepsLettersDigitsAndInnerDotsAndEscapesTheRest() {
        let names = ["my sdk/../ü.x": "my%20sdk%2F..%2F%C3%BC.x", ".hidden": "%2Ehidden", "": "%", "A-z_0.9": "A-z_0.9", "%\n": "%25%0A"]
        for (name, folder) in names {
            XCTAssertEqual(ResponseCache(name: name).directory.lastPathComponent, folder, name)
        }
    }

    func testEntriesOfTheOldFormatAreIgnoredAndRemoved() throws {
        let resource = VersionedResource()
        server.route("GET", "/doc") { resource.reply(to: $0) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // An entry as the first format wrote it: "ENC1", a header length, a JSON header, the body.
        let header = Data(#"{"key":"GET x -","url":"x","statusCode":200,"headers":{},"storedAt":0,"bodyLength":2,"bodyChecksum":1}"#.utf8)
        var old = Data("ENC1".utf8)
        withUnsafeBytes(of: UInt32(header.count).bigEndian) { old.append(contentsOf: $0) }
        old.append(header)
        old.append(Data("{}".utf8))
        let oldFile = folder.appendingPathComponent("a1b2c3d4e5f6.cache")
        try old.write(to: oldFile)
        let host = self.host()
        XCTAssertEqual(try fetch(CachedGet(api: "/doc", policy: .cacheElseNetwork(maxAge: 60)), host: host)?.get(), ["version": 1])
        XCTAssertEqual(try fetch(CachedGet(api: "/doc", policy: .cacheElseNetwork(maxAge: 60)), host: host)?.get(), ["version": 1])
        XCTAssertEqual(resource.fullResponses, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: oldFile.path), "an entry of the old format is removed")
    }

    func testACredentialAddedByAnInterceptorKeepsUsersApart() throws {
        routeMe()
        let host = self.host()
        let user = Collector<String>()
        user.append("alice")
        host.interceptors = [ClosureInterceptor(adapt: { request, _ in
            var request = request
            request.setValue("Bearer \(user.values.last ?? "")", forHTTPHeaderField: "Authorization")
            return request
        })]
        let me = CachedUserGet(api: "/me", policy: .cacheElseNetwork(maxAge: 60))
        XCTAssertEqual(try fetchUser(me, host: host)?.get(), ["user": "alice"])
        user.append("bob")
        XCTAssertEqual(try fetchUser(me, host: host)?.get(), ["user": "bob"])
        user.append("alice")
        XCTAssertEqual(try fetchUser(me, host: host)?.get(), ["user": "alice"])
        XCTAssertEqual(server.requests(path: "/me").count, 2)
    }

    func testAnAnswerFromTheCacheCountsNoAttemptAndSendsNothing() throws {
        let resource = VersionedResource()
        server.route("GET", "/doc") { resource.reply(to: $0) }
        let host = self.host()
        let sent = Collector<String>()
        host.interceptors = [ClosureInterceptor(willSend: { request, _ in sent.append(request.url?.path ?? "") })]
        _ = fetch(CachedGet(api: "/doc", policy: .cacheElseNetwork(maxAge: 60)), host: host)
        let op = RequestOperation(request: CachedGet(api: "/doc", policy: .cacheElseNetwork(maxAge: 60)), configuration: host, decoding: [String: Int].self)
        let done = expectation(description: "cached")
        op.completion = { _ in done.fulfill() }
        queue.addOperation(op)
        wait(for: [done], timeout: 5)
        XCTAssertEqual(try op.result?.get(), ["version": 1])
        XCTAssertEqual(op.metrics?.attempts, 0)
        XCTAssertEqual(sent.values.count, 1, "willSend is not told about a request that is not sent")
        XCTAssertEqual(resource.fullResponses, 1)
    }

    func testALaterResponseThatMayNotBeStoredRemovesTheOldCopy() throws {
        let forbidStoring = CacheRouteSwitch(false)
        server.route("GET", "/doc") { _ in
            forbidStoring.isOn ? .json(#"{"version": 2}"#, headers: ["Cache-Control": "no-store"]) : .json(#"{"version": 1}"#)
        }
        let host = self.host()
        _ = fetch(CachedGet(api: "/doc", policy: .cacheThenNetwork), host: host)
        XCTAssertGreaterThan(cache.totalBytes, 0)
        forbidStoring.isOn = true
        XCTAssertEqual(try fetch(CachedGet(api: "/doc", policy: .cacheThenNetwork), host: host)?.get(), ["version": 2])
        XCTAssertEqual(cache.totalBytes, 0)
    }

    func testAStoredCopyThatNoLongerMapsGoesToTheNetwork() throws {
        server.route("GET", "/doc") { _ in .json(#"{"version": 1, "user": "x"}"#) }
        let host = self.host()
        _ = fetch(CachedGet(api: "/doc", policy: .cacheElseNetwork(maxAge: 60)), host: host)
        struct Stricter: APIRequest {
            typealias Response = [String: String]
            var api: String { "/doc" }
            var cachePolicy: CachePolicy? { .cacheElseNetwork(maxAge: 60) }
        }
        let op = RequestOperation(request: Stricter(), configuration: host, decoding: [String: String].self)
        let done = expectation(description: "stricter")
        op.completion = { _ in done.fulfill() }
        queue.addOperation(op)
        wait(for: [done], timeout: 5)
        XCTAssertThrowsError(try op.result?.get(), "the network's copy does not map either")
        XCTAssertEqual(server.requests(path: "/doc").count, 2, "the stored copy that did not map was not the answer")
    }
}
