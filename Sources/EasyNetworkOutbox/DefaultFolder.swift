import Foundation

extension Outbox {
    /// The folder an outbox uses when given none: `<data>/<app>/<module>/<name>`, where
    /// `<data>` is Application Support on Apple platforms (backed up, never purged by the
    /// system; the outbox excludes its folder from backups) and `$XDG_DATA_HOME` (else
    /// `~/.local/share`) on Linux; `<app>` is the main bundle's identifier, else the
    /// process name, so two apps that embed your SDK never share entries; `<module>` is the
    /// module of the code that calls this (from `fileID`). Never a caches folder, which
    /// the system may empty.
    ///
    /// An app extension has an app of its own: to share an outbox with the app, pass a
    /// folder in a shared app group container.
    @_optimize(size)
    public static func defaultFolder(name: String = "Outbox", fileID: String = #fileID) -> URL {
        // `Module/File.swift`: what comes before the slash.
        let parts = NSString(string: fileID).pathComponents
        let module = parts.count > 1 ? parts[0] : "EasyNetworkOutbox"
        let app = Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
        return dataHome()
            .appendingPathComponent(app, isDirectory: true)
            .appendingPathComponent(module, isDirectory: true)
            .appendingPathComponent(name, isDirectory: true)
    }

    /// Application Support, or the XDG data home.
    @_optimize(size)
    private static func dataHome() -> URL {
#if canImport(Darwin)
        if let url = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first {
            return url
        }
        return URL(fileURLWithPath: NSHomeDirectory(), isDirectory: true).appendingPathComponent("Library/Application Support", isDirectory: true)
#else
        if let xdg = getenv("XDG_DATA_HOME"), xdg.pointee == UInt8(ascii: "/") {
            return URL(fileURLWithPath: String(cString: xdg), isDirectory: true)
        }
        let home = URL(fileURLWithPath: getenv("HOME").map { String(cString: $0) } ?? NSHomeDirectory(), isDirectory: true)
        return home.appendingPathComponent(".local/share", isDirectory: true)
#endif
    }
}
