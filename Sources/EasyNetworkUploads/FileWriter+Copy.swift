#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

extension FileWriter {
    /// Appends the contents of `file`, read in 64 KB pieces.
    /// - Returns: the bytes copied.
    @inline(never)  // out of the parts loop
    func copy(from file: URL) throws -> Int64 {
        var copied: Int64 = 0
        let reader = try FileHandle(forReadingFrom: file)
        defer { try? reader.close() }
        while true {
            let chunk: Data
            if #available(iOS 13.4, macOS 10.15.4, tvOS 13.4, watchOS 6.2, *) {
                chunk = try reader.read(upToCount: 64 * 1024) ?? Data()
            } else {
                chunk = reader.readData(ofLength: 64 * 1024)
            }
            if chunk.isEmpty { return copied }
            copied += try put(chunk)
        }
    }

    /// Appends `text` and `more` as UTF-8 (one out-of-line copy of the joining).
    /// - Returns: their length in bytes.
    @inline(never)
    func put(_ text: String, _ more: String) throws -> Int64 {
        try put(MultipartFormData.bytes(text + more))
    }

    /// Appends `data` (one out-of-line copy of the write for every caller).
    /// - Returns: its length in bytes.
    @inline(never)
    func put(_ data: Data) throws -> Int64 {
        try write(data)
        return Int64(data.count)
    }
}
