#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

extension MultipartFormData {
    /// Adds every part of `other`.
    mutating func append(contentsOf other: MultipartFormData) {
        for part in other.parts {
            addPart(part)
        }
    }

    /// Writes the whole body to `url`.
    /// - Returns: its length in bytes.
    /// - Throws: when a file cannot be read or the body cannot be written.
    @discardableResult
    func write(to url: URL) throws -> Int64 {
        let writer = try FileWriter(url: url, appending: false)
        defer { writer.close() }
        var length: Int64 = 0
        func put(_ data: Data) throws {
            try writer.write(data)
            length += Int64(data.count)
        }
        for case let part as FormPart in parts {
            try put(Self.bytes("--" + boundary + "\r\n" + part.headers))
            if let file = part.file {
                length += try writer.copy(from: file)
            } else {
                try put(part.data)
            }
            try put(Self.bytes("\r\n"))
        }
        try put(Self.bytes("--" + boundary + "--\r\n"))
        return length
    }
}
