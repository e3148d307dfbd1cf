import Foundation

/// Appends to a file, reporting failures as errors (the old `FileHandle.write(_:)`
/// raises an Objective-C exception on Apple platforms instead, which nothing can catch).
package final class FileWriter {
    private let handle: FileHandle
    /// The bytes this writer wrote.
    package private(set) var written: Int64

    /// Opens `url` for writing: after its current end when `appending`, else emptied.
    package init(url: URL, appending: Bool) throws {
        written = 0
        if !appending || !FileManager.default.fileExists(atPath: url.path) {
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
            }
        }
        handle = try FileHandle(forWritingTo: url)
        if appending {
            if #available(iOS 13.4, macOS 10.15.4, tvOS 13.4, watchOS 6.2, *) {
                try handle.seekToEnd()
            } else {
                handle.seekToEndOfFile()
            }
        }
    }

    /// Appends `data` (out of line: a multipart body writes from several places).
    @inline(never)
    package func write(_ data: Data) throws {
        if #available(iOS 13.4, macOS 10.15.4, tvOS 13.4, watchOS 6.2, *) {
            try handle.write(contentsOf: data)
        } else {
            handle.write(data)
        }
        written += Int64(data.count)
    }

    package func close() {
        if #available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *) {
            try? handle.close()
        } else {
            handle.closeFile()
        }
    }
}
