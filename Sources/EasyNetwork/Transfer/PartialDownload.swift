import Foundation

/// The unfinished bytes of a download and what is needed to resume them, kept next to
/// the destination (`<name>.partial` and `<name>.partial.json`). Nothing absolute is
/// stored: the files are found from the destination the caller gives, so they survive
/// an app restart that moves the app's container.
struct PartialDownload {
    /// What the server said about the resource when the bytes were written.
    struct Validator: Codable, Equatable {
        var url: String
        var etag: String?
        var lastModified: String?
        var totalLength: Int64?
    }

    let destination: URL

    var dataURL: URL { destination.deletingLastPathComponent().appendingPathComponent(destination.lastPathComponent + ".partial") }
    var metadataURL: URL { destination.deletingLastPathComponent().appendingPathComponent(destination.lastPathComponent + ".partial.json") }

    /// The bytes on disk and their validator, when both are usable for `url`.
    func resumePoint(for url: URL) -> (offset: Int64, validator: Validator)? {
        guard let data = try? Data(contentsOf: metadataURL),
              let validator = try? JSONDecoder().decode(Validator.self, from: data),
              validator.url == url.absoluteString,
              validator.etag != nil || validator.lastModified != nil,
              let attributes = try? FileManager.default.attributesOfItem(atPath: dataURL.path),
              let size = (attributes[.size] as? NSNumber)?.int64Value, size > 0
        else { return nil }
        if let total = validator.totalLength, size >= total { return nil }
        return (size, validator)
    }

    func save(_ validator: Validator) {
        if let data = try? JSONEncoder().encode(validator) {
            try? data.write(to: metadataURL, options: .atomic)
        }
    }

    func discard() {
        try? FileManager.default.removeItem(at: dataURL)
        try? FileManager.default.removeItem(at: metadataURL)
    }
}
