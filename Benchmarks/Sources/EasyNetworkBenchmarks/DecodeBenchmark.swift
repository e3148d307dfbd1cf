import EasyNetwork
import EasyNetworkEnvelopes
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One item of the decoding benchmark's array.
struct BenchItem: Decodable, ParsedItem {
    let id: Int
    let name: String
    let price: Double
    let tags: [String]
    let active: Bool
}

/// A hand-written mapper for ``BenchItem``, the seed's way.
final class BenchItemMapper: ResponseMapper<BenchItem>, ResponseMapperProtocol {
    static func process(_ obj: Any?) throws -> BenchItem {
        try process(obj) { json in
            guard let id = json["id"] as? Int, let name = json["name"] as? String,
                  let price = json["price"] as? Double, let tags = json["tags"] as? [String],
                  let active = json["active"] as? Bool
            else { return nil }
            return BenchItem(id: id, name: name, price: price, tags: tags, active: active)
        }
    }
}

/// Decoding a large JSON array through EasyNetwork's mapping paths against the same
/// work written by hand, interleaved, in one run.
enum DecodeBenchmark {
    static func makeBody(items: Int) -> Data {
        var text = "["
        text.reserveCapacity(items * 80)
        for index in 0..<items {
            if index > 0 { text += "," }
            text += #"{"id":\#(index),"name":"item \#(index)","price":\#(Double(index) / 4),"tags":["a","b"],"active":\#(index % 2 == 0)}"#
        }
        text += "]"
        return Data(text.utf8)
    }

    static func seconds(_ body: () throws -> Int) rethrows -> (Double, Int) {
        let start = DispatchTime.now().uptimeNanoseconds
        let count = try body()
        return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, count)
    }

    static func run(items: Int, rounds: Int) throws {
        let body = makeBody(items: items)
        guard let url = URL(string: "http://127.0.0.1/items"),
              let http = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Content-Type": "application/json"])
        else { return }
        let response = NetworkResponse(request: URLRequest(url: url), httpResponse: http, data: body)
        var wrappedBody = Data(#"{"code":0,"msg":"","data":"#.utf8)
        wrappedBody.append(body)
        wrappedBody.append(Data("}".utf8))
        let wrapped = NetworkResponse(request: URLRequest(url: url), httpResponse: http, data: wrappedBody, envelope: .codeEquals(0))
        struct Envelope: Decodable { let code: Int; let data: [BenchItem] }
        let mapperPath = ResponseDecoder<[BenchItem]>.map { try ArrayResponseMapper<BenchItem>.process($0, mapper: BenchItemMapper.process) }
        let decodablePath = ResponseDecoder<[BenchItem]>.decodable()

        print("decoding \(items) items (\(body.count / 1024) KiB of JSON), \(rounds) interleaved rounds")
        var mapperRatios: [Double] = [], decodableRatios: [Double] = [], envelopeRatios: [Double] = []
        for round in 1...rounds {
            let (handMap, a) = try seconds {
                guard let array = try JSONSerialization.jsonObject(with: body) as? [[String: Any]] else { return 0 }
                var result: [BenchItem] = []
                result.reserveCapacity(array.count)
                for json in array {
                    guard let id = json["id"] as? Int, let name = json["name"] as? String,
                          let price = json["price"] as? Double, let tags = json["tags"] as? [String],
                          let active = json["active"] as? Bool
                    else { continue }
                    result.append(BenchItem(id: id, name: name, price: price, tags: tags, active: active))
                }
                return result.count
            }
            let (easyMap, b) = try seconds { try mapperPath.decode(response).count }
            let (handDecode, c) = try seconds { try JSONDecoder().decode([BenchItem].self, from: body).count }
            let (easyDecode, d) = try seconds { try decodablePath.decode(response).count }
            let (handEnvelope, e) = try seconds {
                let envelope = try JSONDecoder().decode(Envelope.self, from: wrappedBody)
                return envelope.code == 0 ? envelope.data.count : 0
            }
            let (easyEnvelope, f) = try seconds { try decodablePath.decode(wrapped).count }
            guard a == items, b == items, c == items, d == items, e == items, f == items else {
                print("count mismatch: \(a) \(b) \(c) \(d) \(e) \(f)")
                return
            }
            envelopeRatios.append(easyEnvelope / handEnvelope)
            mapperRatios.append(easyMap / handMap)
            decodableRatios.append(easyDecode / handDecode)
            print(String(format: "round %d  JSONSerialization by hand %.3f s, ArrayResponseMapper %.3f s (%.3f×)   JSONDecoder by hand %.3f s, Decodable path %.3f s (%.3f×)",
                         round, handMap, easyMap, easyMap / handMap, handDecode, easyDecode, easyDecode / handDecode))
        }
        print(String(format: "median time EasyNetwork/hand-written: ArrayResponseMapper %.3f×, Decodable %.3f× (target ≤ 1.1×)",
                     median(mapperRatios), median(decodableRatios)))
        print(String(format: "with a {code, msg, data} envelope: Decodable path / one hand-written JSONDecoder pass %.3f× (one pass: the envelope fields and the payload together)",
                     median(envelopeRatios)))
    }
}
