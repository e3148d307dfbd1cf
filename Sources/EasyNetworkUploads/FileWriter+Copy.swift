#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

extension FileWriter {
    /// Appends the contents of `file`, read in 64 KB pieces.
    /// - Returns: the bytes copied.
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
            try write(chunk)
            copied += Int64(chunk.count)
        }
    }
}
