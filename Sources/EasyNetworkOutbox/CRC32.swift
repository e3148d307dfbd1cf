/// CRC-32 (IEEE 802.3, the zlib/PNG polynomial), for telling a torn or damaged entry file
/// from a whole one. Not a defence against tampering: whoever can write the folder can
/// write a matching checksum.
enum CRC32 {
    /// The table of the reflected polynomial 0xEDB88320, made once.
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 {
            value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1
        }
        return value
    }

    /// The checksum of `bytes` (`123456789` gives `0xCBF43926`).
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { table in
            for byte in bytes {
                crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
            }
        }
        return crc ^ 0xFFFF_FFFF
    }
}
