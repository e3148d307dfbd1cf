// The child process of the outbox tests (OutboxCrashTests, FolderLockTests,
// EntryFolderTests): an outbox in a process of its own, which the tests kill with SIGKILL
// at random moments, run as another user, or run with a file size limit. Not a product.
//
//   EasyNetworkOutboxChild send-loop FOLDER BASE-URL LOG FIRST   send entries n = FIRST, FIRST+1, …
//       (POST /events {"n": n}) forever, delivering as it goes; before each send it appends
//       "T n" to LOG, after it returned "A n" (one write(2) each, so a kill loses no line).
//   EasyNetworkOutboxChild drain FOLDER BASE-URL                   deliver until nothing is left, exit 0.
//   Both print "ready" once their outbox is resumed.
//   EasyNetworkOutboxChild send FOLDER BASE-URL FIRST COUNT        send COUNT entries, deliver them all, exit 0.
//   EasyNetworkOutboxChild try-send FOLDER BASE-URL [BYTES]        one send with a body of BYTES bytes;
//       prints "accepted" or "refused CODE MESSAGE"; with EASYNETWORK_CHILD_NOBODY=1 a root process
//       first becomes nobody (uid 65534), whom file permissions stop; with EASYNETWORK_CHILD_FSIZE=N
//       it first limits its files to N bytes (setrlimit RLIMIT_FSIZE, SIGXFSZ ignored, as an app
//       must; with EASYNETWORK_CHILD_SIGXFSZ=default too, SIGXFSZ keeps its default action, which
//       ends the process, and no core file is written). After a refusal it prints
//       "SIGXFSZ ignored" when the signal's disposition is still SIG_IGN.
import EasyNetwork
import EasyNetworkOutbox
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct EventRequest: BaseAPIRequest {
    let n: Int
    var padding = ""
    var api: String { "/events" }
    var method: NetworkService.Method { .post }
    var query: NetworkService.QueryType { .json }
    var params: [String: Any]? { padding.isEmpty ? ["n": n] : ["n": n, "padding": padding] }
    var headers: [String: String]? { ["Authorization": "Bearer child-secret"] }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count >= 4, let base = URL(string: arguments[3]) else { fail("usage: see main.swift") }
let folder = URL(fileURLWithPath: arguments[2])
let host = HostConfiguration(baseURL: base)
host.callbackQueue = DispatchQueue(label: "child.callbacks")
let options = OutboxOptions(retryDelay: 0.01, maxRetryDelay: 0.2)
let queue = NetworkQueue(maxConcurrentOperationCount: 4)

/// Tells the parent (one line on standard output) that the outbox is working.
func ready() {
    FileHandle.standardOutput.write(Data("ready\n".utf8))
}

/// Waits until `outbox` has nothing left to deliver, then exits 0.
func drainAndExit(_ outbox: Outbox) -> Never {
    while outbox.pendingCount > 0 { usleep(5_000) }
    exit(0)
}

switch arguments[1] {
case "send-loop":
    guard arguments.count == 6, let first = Int(arguments[5]) else { fail("send-loop FOLDER BASE-URL LOG FIRST") }
    let log = open(arguments[4], O_WRONLY | O_APPEND | O_CREAT, 0o644)
    guard log >= 0 else { fail("cannot open the log") }
    let outbox = Outbox(host: host, queue: queue, folder: folder, options: options)
    outbox.resume()
    ready()
    var n = first
    while true {
        let tried = "T \(n)\n", accepted = "A \(n)\n"
        _ = tried.withCString { write(log, $0, strlen($0)) }
        do {
            try outbox.send(EventRequest(n: n))
            _ = accepted.withCString { write(log, $0, strlen($0)) }
        } catch {
            fail("send \(n): \(error)")
        }
        n += 1
        usleep(UInt32.random(in: 0...1_500))
    }
case "drain":
    let outbox = Outbox(host: host, queue: queue, folder: folder, options: options)
    outbox.resume()
    ready()
    drainAndExit(outbox)
case "send":
    guard arguments.count == 6, let first = Int(arguments[4]), let count = Int(arguments[5]) else { fail("send FOLDER BASE-URL FIRST COUNT") }
    let outbox = Outbox(host: host, queue: queue, folder: folder, options: OutboxOptions(retryDelay: 0.01, maxRetryDelay: 0.2, lockRetryInterval: 0.02))
    outbox.resume()
    for n in first..<first + count {
        do { try outbox.send(EventRequest(n: n)) } catch { fail("send \(n): \(error)") }
    }
    drainAndExit(outbox)
case "try-send":
    let bytes = arguments.count > 4 ? Int(arguments[4]) ?? 0 : 0
    if let limit = ProcessInfo.processInfo.environment["EASYNETWORK_CHILD_FSIZE"].flatMap(rlim_t.init) {
#if os(Linux)
        let (resource, core) = (Int32(RLIMIT_FSIZE.rawValue), Int32(RLIMIT_CORE.rawValue))
#else
        let (resource, core) = (RLIMIT_FSIZE, RLIMIT_CORE)
#endif
        if ProcessInfo.processInfo.environment["EASYNETWORK_CHILD_SIGXFSZ"] == "default" {
            var none = rlimit(rlim_cur: 0, rlim_max: 0)
            guard setrlimit(core, &none) == 0 else { fail("setrlimit RLIMIT_CORE failed") }
        } else {
            signal(SIGXFSZ, SIG_IGN)
        }
        var bound = rlimit(rlim_cur: limit, rlim_max: limit)
        guard setrlimit(resource, &bound) == 0 else { fail("setrlimit failed") }
    }
    if getuid() == 0, ProcessInfo.processInfo.environment["EASYNETWORK_CHILD_NOBODY"] == "1" {
        guard setgid(65534) == 0, setuid(65534) == 0 else { fail("cannot become nobody") }
    }
    let outbox = Outbox(host: host, queue: queue, folder: folder, options: options)
    do {
        try outbox.send(EventRequest(n: 1, padding: String(repeating: "x", count: bytes)))
        print("accepted")
    } catch let error as OutboxError {
        print("refused " + error.code.rawValue + " " + error.message)
        // Still ignored: the library changed no signal disposition.
        let previous = signal(SIGXFSZ, SIG_IGN)
        if unsafeBitCast(previous, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) { print("SIGXFSZ ignored") }
    }
    exit(0)
default:
    fail("unknown mode " + arguments[1])
}
