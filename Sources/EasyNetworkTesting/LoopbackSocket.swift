import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin, blocking wrappers around the BSD socket calls used by ``LoopbackServer``.
///
/// Every call retries on `EINTR`. Sending never raises `SIGPIPE`
/// (`MSG_NOSIGNAL` on Linux, `SO_NOSIGPIPE` on Darwin).
enum LoopbackSocket {
    #if os(Linux)
    private static let streamType = Int32(SOCK_STREAM.rawValue)
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
    private static let streamType = SOCK_STREAM
    private static let sendFlags: Int32 = 0
    #endif

    /// Creates a non-blocking socket listening on 127.0.0.1 (or `::1` when `ipv6`) on
    /// `port` (0: an OS-assigned one).
    static func makeListener(port: UInt16 = 0, ipv6: Bool = false) throws -> (descriptor: Int32, port: UInt16) {
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, streamType, 0)
        guard fd >= 0 else { throw LoopbackServerError.socket(errno: errno) }
        setCloseOnExec(fd)
        setFlag(fd, SOL_SOCKET, SO_REUSEADDR)
        #if !os(Linux)
        setFlag(fd, SOL_SOCKET, SO_NOSIGPIPE)
        #endif
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL, 0) | O_NONBLOCK)

        // Room for either address; bound and named through the same storage.
        var storage = sockaddr_storage()
        let length: Int
        if ipv6 {
            var address = sockaddr_in6()
            #if !os(Linux)
            address.sin6_len = UInt8(MemoryLayout<sockaddr_in6>.size)
            #endif
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            address.sin6_addr = in6addr_loopback
            length = MemoryLayout<sockaddr_in6>.size
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in6.self) }
        } else {
            var address = sockaddr_in()
            #if !os(Linux)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
            #endif
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
            length = MemoryLayout<sockaddr_in>.size
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in.self) }
        }
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(length)) }
        }
        guard bound == 0 else {
            let code = errno
            closeDescriptor(fd)
            throw LoopbackServerError.bind(errno: code)
        }
        guard listen(fd, 128) == 0 else {
            let code = errno
            closeDescriptor(fd)
            throw LoopbackServerError.listen(errno: code)
        }
        var named = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &named) }
        }
        guard result == 0 else {
            let code = errno
            closeDescriptor(fd)
            throw LoopbackServerError.socketName(errno: code)
        }
        let boundPort = withUnsafeBytes(of: &storage) {
            ipv6 ? $0.load(as: sockaddr_in6.self).sin6_port : $0.load(as: sockaddr_in.self).sin_port
        }
        return (fd, UInt16(bigEndian: boundPort))
    }

    /// Waits up to `milliseconds` for `fd` to become readable (or hung up).
    static func waitReadable(_ fd: Int32, milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let result = poll(&entry, 1, milliseconds)
            if result < 0 && errno == EINTR { continue }
            return result > 0
        }
    }

    /// Accepts one pending connection and makes it a blocking socket; nil if none is pending or on error.
    static func acceptConnection(_ listener: Int32) -> Int32? {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 && errno == EINTR { continue }
            guard fd >= 0 else { return nil }
            setCloseOnExec(fd)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL, 0) & ~O_NONBLOCK)
            #if !os(Linux)
            setFlag(fd, SOL_SOCKET, SO_NOSIGPIPE)
            #endif
            setFlag(fd, Int32(IPPROTO_TCP), TCP_NODELAY)
            return fd
        }
    }

    /// Reads up to `buffer.count` bytes. Returns the count read, 0 at end of stream, -1 on error.
    static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let count = recv(fd, base, buffer.count, 0)
            if count < 0 && errno == EINTR { continue }
            return count
        }
    }

    /// Writes all of `bytes`, looping over partial writes. Returns false if the peer is gone.
    static func sendAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var offset = 0
        while offset < bytes.count {
            let count = send(fd, base + offset, bytes.count - offset, sendFlags)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }

    /// Writes all of `data`. Returns false if the peer is gone.
    static func sendAll(_ fd: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { sendAll(fd, $0) }
    }

    /// Shuts down both directions, waking any thread blocked on `fd`. Does not release the descriptor.
    static func shutdownBoth(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Makes the next close send a TCP RST instead of a FIN (`SO_LINGER` {1, 0}).
    static func setResetOnClose(_ fd: Int32) {
        var value = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &value, socklen_t(MemoryLayout<linger>.size))
    }

    /// Limits the socket's receive buffer (and so the window the peer may fill).
    static func setReceiveBufferSize(_ fd: Int32, _ bytes: Int32) {
        var value = bytes
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Releases the descriptor.
    static func closeDescriptor(_ fd: Int32) {
        _ = close(fd)
    }

    private static func setFlag(_ fd: Int32, _ level: Int32, _ option: Int32) {
        var on: Int32 = 1
        _ = setsockopt(fd, level, option, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    private static func setCloseOnExec(_ fd: Int32) {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }
}
