/// CRC-32 (IEEE 802.3, the zlib/PNG polynomial), for telling a torn or damaged entry file
/// from a whole one. Not a defence against tampering: whoever can write the folder can
/// write a matching checksum.
enum CRC32 {
    /// The reflected polynomial 0xEDB88320 applied to each 4-bit value: two lookups a byte
    /// (a 16-entry table is a constant; 256 entries would have to be computed).
    private static let table: [UInt32] = [
        0x0000_0000, 0x1DB7_1064, 0x3B6E_20C8, 0x26D9_30AC, 0x76DC_4190, 0x6B6B_51F4, 0x4DB2_6158, 0x5005_713C,
        0xEDB8_8320, 0xF00F_9344, 0xD6D6_A3E8, 0xCB61_B38C, 0x9B64_C2B0, 0x86D3_D2D4, 0xA00A_E278, 0xBDBD_F21C,
    ]

    /// The checksum of `bytes` (`123456789` gives `0xCBF43926`).
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { table in
            for byte in bytes {
                crc = table[Int((crc ^ UInt32(byte)) & 0xF)] ^ (crc >> 4)
                crc = table[Int((crc ^ UInt32(byte) >> 4) & 0xF)] ^ (crc >> 4)
            }
        }
        return crc ^ 0xFFFF_FFFF
    }
}
