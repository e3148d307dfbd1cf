// Links two SDKs that each carry a renamed copy of EasyNetwork (AcmeNet in AcmeSDK, BetaNet in
// BetaSDK) and EasyNetwork itself; sends requests through all three to one loopback server
// and checks that nothing module-specific is shared. Exits 0 when all holds, 1 otherwise.
import AcmeSDK
import BetaSDK
import EasyNetwork
import EasyNetworkTesting
import Foundation

DispatchQueue.global().asyncAfter(deadline: .now() + 90) {
    print("FAIL: no answer within 90 s")
    exit(1)
}

var failures = 0
@MainActor func check(_ condition: Bool, _ message: String) {
    print((condition ? "ok   " : "FAIL ") + message)
    if !condition { failures += 1 }
}

/// One copy as the app sees it: its name, how to sign in through it, its run-time names.
struct Copy: Sendable {
    let module: String
    let signIn: @Sendable (URL, String, String, @escaping @Sendable (Result<String, any Error>) -> Void) -> Void
    let names: [String: String]
}

let appQueue = NetworkQueue(name: nil)
let appHost = HostConfiguration(baseURL: nil)
let copies = [
    Copy(module: "AcmeNet", signIn: { AcmeSDK.signIn(baseURL: $0, path: $1, userName: $2, completion: $3) }, names: AcmeSDK.copyNames),
    Copy(module: "BetaNet", signIn: { BetaSDK.signIn(baseURL: $0, path: $1, userName: $2, completion: $3) }, names: BetaSDK.copyNames),
    Copy(
        module: "EasyNetwork",
        signIn: { url, path, user, completion in
            appHost.baseURL = url
            let operation = SignInOperation(host: appHost, path: path, userName: user)
            operation.success = { completion(.success($0.userName)) }
            operation.failure = { completion(.failure($0)) }
            appQueue.addOperation(operation)
        },
        names: [
            "Swift type name": String(reflecting: ServiceOperation.self),
            "runtime class name": NSStringFromClass(ServiceOperation.self),
            "401 notification name": HostConfiguration.unauthorizedOperationNotification.rawValue,
            "NSError domain": NetworkError.errorDomain,
            "operation queue name": appQueue.operationQueue.name ?? "",
        ]
    ),
]

// 1. Every module-specific string differs between the copies and names its own module.
for key in copies[0].names.keys.sorted() {
    let values = copies.map { $0.names[key] ?? "" }
    check(Set(values).count == copies.count, "\(key)s differ: \(values)")
    for (copy, value) in zip(copies, values) {
        check(value.lowercased().contains(copy.module.lowercased()), "\(copy.module)'s \(key) '\(value)' names its module")
    }
}

// 2. One request through each copy to the same loopback server.
let server = try LoopbackServer()
server.route("POST", "/sign_in") { request in
    let json = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any]
    return .json(object: ["userName": json?["username"] as? String ?? "?", "token": "t"])
}

/// Counts the 401 notifications each copy's name receives.
final class NotificationCount: @unchecked Sendable {  // unchecked: `counts` is guarded by `lock`
    private let lock = NSLock()
    private var counts: [String: Int] = [:]
    func add(_ name: String) { lock.lock(); counts[name, default: 0] += 1; lock.unlock() }
    func count(_ name: String) -> Int { lock.lock(); defer { lock.unlock() }; return counts[name] ?? 0 }
}
let received = NotificationCount()
let observers = copies.map { copy in
    let name = copy.names["401 notification name"] ?? ""
    return NotificationCenter.default.addObserver(forName: Notification.Name(name), object: nil, queue: nil) { _ in
        received.add(name)
    }
}

func send(_ copy: Copy, path: String) async -> Result<String, any Error> {
    await withCheckedContinuation { continuation in
        copy.signIn(server.baseURL, path, copy.module) { continuation.resume(returning: $0) }
    }
}

for copy in copies {
    let result = await send(copy, path: "/sign_in")
    check((try? result.get()) == copy.module, "\(copy.module) signed in through its own copy: \(result)")
}

// 3. A 401 through each copy posts that copy's notification only.
for (index, copy) in copies.enumerated() {
    let result = await send(copy, path: "/status/401")
    check((try? result.get()) == nil, "\(copy.module) got the 401 as a failure")
    for (other, otherCopy) in copies.enumerated() {
        let name = otherCopy.names["401 notification name"] ?? ""
        let expected = other <= index ? 1 : 0
        check(received.count(name) == expected, "after \(copy.module)'s 401, '\(name)' was posted \(received.count(name)) time(s), expected \(expected)")
    }
}

observers.forEach { NotificationCenter.default.removeObserver($0) }
server.stop()
print(failures == 0 ? "vendoring check passed" : "vendoring check: \(failures) failure(s)")
exit(failures == 0 ? 0 : 1)
