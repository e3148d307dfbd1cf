import Foundation

/// Appends to a file, reporting failures as errors (the old `FileHandle.write(_:)`
/// raises an Objective-C exception on Apple platforms instead, which nothing can catch).
/// A struct around the handle, not a class: no class metadata, no `deinit` of its own.
@usableFromInline
package struct FileWriter {
    @usableFromInline let handle: FileHandle

    /// Opens `url` for writing: after its current end when `appending`, else emptied.
    /// (In the products that write files, as every member: the core never does.)
    @_alwaysEmitIntoClient
    package init(url: URL, appending: Bool) throws {
        if !appending || !FileManager.default.fileExists(atPath: url.path) {
            try Data().write(to: url)  // made, or emptied; a failure names the file
        }
        let handle = try FileHandle(forWritingTo: url)
        if appending {
            if #available(iOS 13.4, macOS 10.15.4, tvOS 13.4, watchOS 6.2, *) {
                try handle.seekToEnd()
            } else {
                handle.seekToEndOfFile()
            }
        }
        self.init(handle: handle)
    }

    @_alwaysEmitIntoClient  // in the products, as every member
    init(handle: FileHandle) {
        self.handle = handle
    }

    /// Appends `data` (in the products that write files: the core never does).
    @_alwaysEmitIntoClient
    package func write(_ data: Data) throws {
        if #available(iOS 13.4, macOS 10.15.4, tvOS 13.4, watchOS 6.2, *) {
            try handle.write(contentsOf: data)
        } else {
            handle.write(data)
        }
    }

    /// Closes the file.
    @_alwaysEmitIntoClient
    package func close() {
        if #available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *) {
            try? handle.close()
        } else {
            handle.closeFile()
        }
    }
}
