import EasyNetwork
import EasyNetworkUploads
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How long building one request takes when a single field name or value is 10 KB, 100 KB
/// or 1 MB, in every encoding: the time must grow with the input's size, not with its square
/// (issue 24: a 70,000-character multipart field name once gave no callback in 60 s).
///
/// Nothing is sent: a host interceptor refuses every request in `adapt`, right after the
/// `URLRequest` (and for multipart, the body file) was built, so the time from `request` to
/// the failure callback is the encoding's plus the pipeline's small fixed cost.
enum EncodingBenchmark {
    /// A request whose field names and values come from the benchmark.
    struct Probe: BaseAPIRequest {
        var api = "/encode"
        var method: NetworkService.Method = .post
        var query: NetworkService.QueryType = .json
        var params: [String: Any]?
        var headers: [String: String]? { nil }
        var form: MultipartFormData?
        var multipartBody: MultipartFormData? { form }
    }

    /// Refuses the request once it is built, so nothing goes to the network.
    struct Stop: Error {}
    /// Refuses every request in `adapt` (ClosureInterceptor is EasyNetworkPlugins' since 1.0).
    struct Refusal: RequestInterceptor {
        func adapt(_ urlRequest: URLRequest, context: RequestContext) throws -> URLRequest { throw Stop() }
    }

    /// The cases: a label and a request made for a string of `size` bytes.
    static let cases: [(String, @Sendable (String) -> Probe)] = [
        ("path: name", { Probe(method: .get, query: .path, params: [$0: "v"]) }),
        ("path: value", { Probe(method: .get, query: .path, params: ["k": $0]) }),
        ("form: name", { Probe(query: .form, params: [$0: "v"]) }),
        ("form: value", { Probe(query: .form, params: ["k": $0]) }),
        ("json: name", { Probe(query: .json, params: [$0: "v"]) }),
        ("json: value", { Probe(query: .json, params: ["k": $0]) }),
        ("multipart: param name", { Probe(query: .form, params: [$0: "v"], form: oneField()) }),
        ("multipart: param value", { Probe(query: .form, params: ["k": $0], form: oneField()) }),
        ("multipart: field name", { text in
            var form = MultipartFormData()
            form.append("v", name: text)
            return Probe(query: .form, form: form)
        }),
        ("multipart: file name", { text in
            var form = MultipartFormData()
            form.append(Data("v".utf8), name: "f", fileName: text + ".txt")
            return Probe(query: .form, form: form)
        }),
    ]

    /// A form with one small part (a form needs a part from `EasyNetworkUploads` to be
    /// written): the params are its other fields.
    static func oneField() -> MultipartFormData {
        var form = MultipartFormData()
        form.append("v", name: "part")
        return form
    }

    /// Text of `size` UTF-8 bytes mixing what each encoding must escape: letters, spaces,
    /// quotes, CR/LF, `%`, brackets and a few multi-byte characters.
    static func text(size: Int) -> String {
        let pattern = Array("ab c\"d\r\ne%f[g]h/i&j=k€lé😀m".utf8)
        var bytes = [UInt8]()
        bytes.reserveCapacity(size)
        while bytes.count < size {
            bytes.append(contentsOf: pattern)
        }
        // Cut on a character boundary.
        var text = String(decoding: bytes.prefix(size), as: UTF8.self)
        while text.utf8.count > size { text.removeLast() }
        return text
    }

    /// Runs every case at 10 KB, 100 KB and 1 MB and prints a table of milliseconds per
    /// request (the median of `rounds`), with the ratio of each size to the one before:
    /// about 10 is linear, about 100 quadratic.
    static func run(rounds: Int = 5) {
        let host = HostConfiguration(baseURL: URL(string: "http://127.0.0.1:9")!)
        host.callbackQueue = DispatchQueue(label: "EncodingBenchmark.callbacks")
        host.interceptors = [Refusal()]
        let sizes = [10_000, 100_000, 1_000_000]
        let texts = sizes.map(text(size:))
        print("Encoding one request with a field name or value of 10 KB, 100 KB and 1 MB")
        print("(ms per request, median of \(rounds); x: ratio to the previous size, ~10 linear, ~100 quadratic)")
        print("case".padding(toLength: 26, withPad: " ", startingAt: 0) + "   10 KB     100 KB          1 MB")
        for (label, make) in cases {
            var row = label.padding(toLength: 26, withPad: " ", startingAt: 0)
            var previous: Double?
            for text in texts {
                var times: [Double] = []
                for _ in 0..<rounds {
                    times.append(time(make(text), host: host))
                }
                let median = times.sorted()[times.count / 2]
                row += String(format: " %9.2f", median * 1000)
                if let previous {
                    row += String(format: " (x%5.1f)", median / max(previous, 1e-9))
                }
                previous = median
            }
            print(row)
        }
    }

    /// Seconds from `request` to its callback.
    static func time(_ probe: Probe, host: HostConfiguration) -> Double {
        let done = DispatchSemaphore(value: 0)
        let start = DispatchTime.now().uptimeNanoseconds
        EasyNetworkService(host).request(probe, success: { _ in done.signal() }, failure: { _ in done.signal() })
        done.wait()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}
