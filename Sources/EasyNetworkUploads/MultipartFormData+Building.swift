#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
#endif
import Foundation

/// Adding parts to a `MultipartFormData` (the type is the core's; with
/// these, the body is written and sent by this module).
extension MultipartFormData {
    /// Adds a text field.
    @_alwaysEmitIntoClient  // in the caller: a program that builds no form carries none of it
    public mutating func append(_ value: String, name: String) {
        addPart(name: name, fileName: nil, mimeType: nil, data: value.data(using: .utf8) ?? Data(), file: nil)
    }

    /// Adds bytes from memory, as a file when `fileName` is given. The MIME type is
    /// guessed from the file name's extension when not given.
    @_alwaysEmitIntoClient
    public mutating func append(_ data: Data, name: String, fileName: String? = nil, mimeType: String? = nil) {
        var type = mimeType
        if type == nil, let fileName {
            type = Self.mimeType(forPathExtension: Self.pathExtension(of: fileName))
        }
        addPart(name: name, fileName: fileName, mimeType: type, data: data, file: nil)
    }

    /// Adds a file from disk, read in pieces when the body is written. File name and
    /// MIME type default to the URL's last component and its extension's type.
    @_alwaysEmitIntoClient
    public mutating func append(fileAt url: URL, name: String, fileName: String? = nil, mimeType: String? = nil) {
        addPart(name: name, fileName: fileName ?? url.lastPathComponent, mimeType: mimeType ?? Self.mimeType(forPathExtension: url.pathExtension), data: Data(), file: url)
    }

    /// Adds a part: its headers name it, and its file name and MIME type when given; its
    /// bytes are `data`, or `file`'s read when the body is written. The one place parts
    /// are made and added.
    @usableFromInline
    mutating func addPart(name: String, fileName: String?, mimeType: String?, data: Data, file: URL?) {
        addPart(FormPart(headers: Self.headers(name: name, fileName: fileName, mimeType: mimeType), data: data, file: file))
    }

    /// The UTF-8 bytes of `text`, by Foundation's own `data(using:)` (never nil for UTF-8):
    /// `Data(text.utf8)` compiled a 4 KB specialization of `Data.init<A>` for this alone.
    @inline(never)
    static func bytes(_ text: String) -> Data {
        text.data(using: .utf8) ?? Data()
    }

    /// The part headers, ending with the blank line (out of line: three call sites).
    @inline(never)
    static func headers(name: String, fileName: String?, mimeType: String?) -> String {
        var text = "Content-Disposition: form-data; name=\"" + escape(name) + "\""
        if let fileName {
            text += "; filename=\"" + escape(fileName) + "\""
        }
        text += "\r\n"
        if let mimeType {
            text += "Content-Type: " + mimeType + "\r\n"
        }
        return text + "\r\n"
    }

    /// Escapes a name as the HTML standard's form encoding does (out of line: two call sites):
    /// CR, LF and `"` become `%0D`, `%0A` and `%22`. One pass over the UTF-8 bytes
    /// (`PercentEncoding.formName`), linear in the name's length.
    @inline(never)
    static func escape(_ value: String) -> String {
        PercentEncoding.encode(value, allowed: PercentEncoding.formName, keepingEscapes: false)
    }

    /// The extension of a file name: what follows the last `.` of its last path component,
    /// or nothing for none, a leading dot (`.profile`) or a trailing one, as `NSString`'s
    /// `pathExtension` reads it. One pass over the bytes: on Linux `NSString.pathExtension`
    /// stops the process for a name with `//` before a non-ASCII character (`"a//é"`).
    @_alwaysEmitIntoClient @usableFromInline  // in the caller: the guess is made where a part is added
    static func pathExtension(of fileName: String) -> String {
        let bytes = Array(fileName.utf8)
        var end = bytes.count
        // A trailing slash ends no component: `a.txt/` is still `a.txt`.
        while end > 0, bytes[end - 1] == UInt8(ascii: "/") { end -= 1 }
        var dot = end
        while dot > 0, bytes[dot - 1] != UInt8(ascii: "/") {
            dot -= 1
            if bytes[dot] == UInt8(ascii: ".") {
                // Not the component's first byte (`.profile`) nor its last (`a.`).
                let first = dot == 0 || bytes[dot - 1] == UInt8(ascii: "/")
                return first || dot + 1 == end ? "" : String(decoding: bytes[(dot + 1)..<end], as: UTF8.self)
            }
        }
        return ""
    }

    /// A MIME type for a file extension, from a small built-in table (no platform API);
    /// `application/octet-stream` when unknown.
    @_alwaysEmitIntoClient  // in the caller: the module itself guesses no type
    public static func mimeType(forPathExtension pathExtension: String) -> String {
        // File extensions and their MIME types, in pairs: a table of constants, not code.
        let knownTypes = [
            "jpg", "image/jpeg", "jpeg", "image/jpeg", "png", "image/png", "gif", "image/gif",
            "webp", "image/webp", "heic", "image/heic", "svg", "image/svg+xml", "pdf", "application/pdf",
            "json", "application/json", "xml", "application/xml", "zip", "application/zip", "gz", "application/gzip",
            "txt", "text/plain", "log", "text/plain", "csv", "text/csv", "html", "text/html", "htm", "text/html",
            "mp4", "video/mp4", "mov", "video/quicktime", "mp3", "audio/mpeg", "m4a", "audio/mp4", "wav", "audio/wav",
        ]
        let name = pathExtension.lowercased()
        for index in stride(from: 0, to: knownTypes.count - 1, by: 2) where knownTypes[index] == name {
            return knownTypes[index + 1]
        }
        return "application/octet-stream"
    }
}
