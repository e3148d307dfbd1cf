@testable import EasyNetwork
import Foundation
import XCTest

/// `TextCharset` keeps each charset as its encoding's raw value (a table of constants, not
/// an import per named encoding): every name must give the platform's named encoding.
final class TextCharsetTests: XCTestCase {
    func testEveryNameGivesThePlatformsNamedEncoding() {
        let expected: [(String, String.Encoding)] = [
            ("utf-8", .utf8), ("utf8", .utf8), ("utf-16", .utf16), ("utf-16le", .utf16LittleEndian),
            ("utf-16be", .utf16BigEndian), ("utf-32", .utf32), ("us-ascii", .ascii), ("ascii", .ascii),
            ("iso-8859-1", .isoLatin1), ("latin1", .isoLatin1), ("iso_8859-1", .isoLatin1), ("l1", .isoLatin1),
            ("iso-8859-2", .isoLatin2), ("latin2", .isoLatin2), ("windows-1252", .windowsCP1252),
            ("cp1252", .windowsCP1252), ("windows-1251", .windowsCP1251), ("cp1251", .windowsCP1251),
            ("shift_jis", .shiftJIS), ("shift-jis", .shiftJIS), ("sjis", .shiftJIS),
            ("euc-jp", .japaneseEUC), ("iso-2022-jp", .iso2022JP),
        ]
        for (name, encoding) in expected {
            XCTAssertEqual(TextCharset.charset(named: name)?.encoding, encoding, name)
            XCTAssertEqual(TextCharset.charset(named: name.uppercased())?.name, name, "the table's own spelling")
        }
    }

    func testNamesAreTrimmedAndCaseInsensitiveAndUnknownOnesAreNil() {
        XCTAssertEqual(TextCharset.charset(named: "\"UTF-8\" ")?.encoding, .utf8)
        XCTAssertEqual(TextCharset.charset(named: "ISO-8859-1")?.encoding, .isoLatin1)
        XCTAssertNil(TextCharset.charset(named: "koi8-r"))
        XCTAssertNil(TextCharset.charset(named: ""))
        XCTAssertNil(TextCharset.charset(named: nil))
    }
}
