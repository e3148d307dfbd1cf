import EasyNetwork
import EasyNetworkTesting
import Foundation

/// `swift run EasyNetworkDemo [--base-url URL | --serve [--port N] | --help]`: the seed's
/// flow through EasyNetwork, against a fake backend on 127.0.0.1 (or a real server with the
/// same endpoints); `--serve` only serves the fake backend, for the README's quick start.
@main
struct EasyNetworkDemo {
    /// The port `--serve` listens on unless `--port` names another; the README's quick
    /// start talks to it.
    static let servePort: UInt16 = 8765

    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.contains("--help") || arguments.contains("-h") {
            say(help)
            exit(0)
        }
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            if word == "--serve" {
                index += 1
            } else if (word == "--base-url" || word == "--port") && index + 1 < arguments.count {
                index += 2
            } else {
                say("Unknown or incomplete argument '\(word)'.\n\n" + help)
                exit(2)
            }
        }
        if arguments.contains("--serve") {
            let port = value(after: "--port", in: arguments) ?? String(servePort)
            guard let number = UInt16(port) else {
                say("Not a port: '\(port)'.")
                exit(2)
            }
            await serve(port: number)
        }
        var server: LoopbackServer?
        if let baseURL = value(after: "--base-url", in: arguments) {
            guard HostConfiguration.baseURL(baseURL) else {
                say("Not a usable base URL: '\(baseURL)' (it needs http:// or https:// and a host).")
                exit(2)
            }
        } else {
            do {
                let started = try DemoBackend.start()
                server = started
                HostConfiguration.baseURL(started.baseURL.absoluteString)
            } catch {
                say("Cannot start the demo backend: \(error)")
                exit(1)
            }
        }
        say("EasyNetwork demo against \(HostConfiguration.shared.baseURL?.absoluteString ?? "?")\n")

        let failed = await DemoSteps.runAll()
        server?.stop()
        if failed.isEmpty {
            say("\nDone: every step ended as expected.")
        } else {
            say("\n\(failed.count) step(s) did not end as expected: \(failed.joined(separator: ", ")).")
            exit(1)
        }
    }

    /// Serves the fake backend until the process is stopped (Ctrl-C).
    static func serve(port: UInt16) async -> Never {
        let server: LoopbackServer
        do {
            server = try DemoBackend.start(port: port)
        } catch {
            say("Cannot serve the demo backend on 127.0.0.1:\(port): \(error)")
            exit(1)
        }
        say("""
        Serving the demo backend on \(server.baseURL.absoluteString) (Ctrl-C to stop).
        Routes:
        \(routes)
        """)
        while true {
            try? await Task.sleep(nanoseconds: 3_600 * 1_000_000_000)
        }
    }

    /// The word after `flag`, if any.
    static func value(after flag: String, in arguments: [String]) -> String? {
        guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }

    /// Every route the flow calls, with the step that calls it: what a real server given to
    /// `--base-url` must offer.
    static let routes = """
          POST /sign_in          1  {"username", "password"} -> {"userName", "token"} (password "secret"; else 403)
          GET  /items            2  [{"id", "title"}, ...]
          GET  /profile          3  {"id", "name", "email"}
          GET  /private          4  401 with {"error": "..."}
          GET  /broken           5  500 with {"message": "..."}
          GET  /slow             6  an answer after more than 0.3 s (the demo cancels it)
          GET  /v2/profile       7  {"code": 0, "msg", "data": {"id", "name", "email"}, "traceId"}
          POST /v2/orders        7  {"code": 8888, "msg", "data", "traceId"} (a business failure inside a 200)
          GET  /v3/me            8  401 unless "Authorization: Bearer fresh-token", then {"id", "name", "email"}
          POST /v3/refresh       8  {"token": "fresh-token"}
          GET  /v3/news          8  503 (Retry-After) twice, then ["..."]
          GET  /v4/cart          9  {"cartId", "items"}
          GET  /v4/quote?cart=N  9  {"cartId", "total"}
          GET  /v4/thumb/1 ... 6 9  {"id", "bytes"}; /v4/thumb/4 answers 404
          GET  /large/30000000   10 30,000,000 bytes, with ETag and Range support (resumable download)
          POST /v5/upload        10 multipart/form-data -> {"received": bytes, "parts": count}
        """

    static let help = """
        Usage: swift run EasyNetworkDemo [--base-url URL | --serve [--port N] | --help]

          (no option)      runs the seed's flow (steps 1-10) against a fake backend it starts on
                           127.0.0.1; exits 1 when a step does not end as expected
          --base-url URL   runs the same flow against a server that offers the routes below
          --serve          only serves the fake backend on http://127.0.0.1:\(servePort), for the
                           README's quick start, until stopped (Ctrl-C)
          --port N         the port of --serve (0: any free port)
          --help           this text

        Routes the flow calls (step, what it expects):
        \(routes)
        """
}
