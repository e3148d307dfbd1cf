/// CRC-32 (IEEE 802.3, the zlib/PNG polynomial), for telling a torn or damaged entry file
/// from a whole one. Not a defence against tampering: whoever can write the folder can
/// write a matching checksum.
enum CRC32 {
    /// The checksum of `bytes` (`123456789` gives `0xCBF43926`): the reflected polynomial
    /// 0xEDB88320, a bit at a time (no table: entry files are small, and a table is a
    /// global with its own initialization).
    @_optimize(size)
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 {
                crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1)))
            }
        }
        return crc ^ 0xFFFF_FFFF
    }
}
