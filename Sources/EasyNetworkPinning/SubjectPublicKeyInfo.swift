#if !COCOAPODS  // CocoaPods compiles every subspec into one module, EasyNetwork itself
import EasyNetwork
import EasyNetworkDigest
#endif
import Foundation

/// The SubjectPublicKeyInfo of an X.509 certificate, read from its DER bytes by a minimal
/// walker (RFC 5280 §4.1): `Certificate ::= SEQUENCE { tbsCertificate SEQUENCE {
/// [0] version OPTIONAL, serialNumber INTEGER, signature, issuer, validity, subject,
/// subjectPublicKeyInfo SEQUENCE { algorithm SEQUENCE, subjectPublicKey BIT STRING }, … },
/// signatureAlgorithm SEQUENCE, signatureValue BIT STRING }`. It reads only those
/// elements, strictly: definite, minimally encoded lengths within their parent, the tags
/// above at their places, nothing after the certificate. It never trusts a length (every
/// one is checked against the bytes left) and never traps: bad input is a reason, not a
/// crash: a ``PublicKeyPinningError`` with reason `malformedCertificate`, no host, and the
/// problem as its message. Whether the certificate is valid is the system's trust
/// evaluation's business.
enum SubjectPublicKeyInfo {
    /// One element: where its content starts and its end (both in the input).
    private typealias Element = (content: Int, end: Int)

    /// The DER bytes (tag and length included) of the SubjectPublicKeyInfo of the
    /// certificate `der`; throws why they cannot be read.
    @_optimize(size)  // a cold path: configuration, a handshake's check, a refusal's words
    static func of(certificate der: Data) throws(PublicKeyPinningError) -> Data {
        let bytes = Self.bytes(der)
        let certificate = try element(bytes, at: 0, end: bytes.count, tag: 0x30, what: "the certificate")
        guard certificate.end == bytes.count else { throw malformed("bytes follow the certificate") }
        let tbs = try element(bytes, at: certificate.content, end: certificate.end, tag: 0x30, what: "tbsCertificate")
        var position = tbs.content
        if position < tbs.end, bytes[position] == 0xA0 {
            position = try element(bytes, at: position, end: tbs.end, tag: 0xA0, what: "the version").end
        }
        position = try element(bytes, at: position, end: tbs.end, tag: 0x02, what: "the serial number").end
        for what in ["the signature algorithm", "the issuer", "the validity", "the subject"] {
            position = try element(bytes, at: position, end: tbs.end, tag: 0x30, what: what).end
        }
        let key = try element(bytes, at: position, end: tbs.end, tag: 0x30, what: "the SubjectPublicKeyInfo")
        let algorithm = try element(bytes, at: key.content, end: key.end, tag: 0x30, what: "the key's algorithm")
        let publicKey = try element(bytes, at: algorithm.end, end: key.end, tag: 0x03, what: "the public key")
        guard publicKey.end == key.end else { throw malformed("bytes follow the public key inside the SubjectPublicKeyInfo") }
        // The outer structure must be whole too: a signature algorithm and a signature after tbsCertificate.
        let signatureAlgorithm = try element(bytes, at: tbs.end, end: certificate.end, tag: 0x30, what: "the signature algorithm")
        let signature = try element(bytes, at: signatureAlgorithm.end, end: certificate.end, tag: 0x03, what: "the signature")
        guard signature.end == certificate.end else { throw malformed("bytes follow the signature") }
        let start = der.startIndex  // read once: each Data accessor inlines a switch over its storage
        return der.subdata(in: (start + position)..<(start + key.end))
    }

    /// The pin of the certificate `der`: the base64 SHA-256 of its SubjectPublicKeyInfo.
    @inline(never)  // the chain check and PublicKeyPinning.pin(ofCertificate:) share one copy
    static func pin(ofCertificate der: Data) throws(PublicKeyPinningError) -> String {
        pin(ofKey: try of(certificate: der))
    }

    /// The pin of a DER SubjectPublicKeyInfo.
    static func pin(ofKey spki: Data) -> String {
        let digest = SHA256.digest(spki)
        // NSData: one initializer call, where `Data(bytes:count:)` compiles its storage code in.
        return NSData(bytes: digest, length: digest.count).base64EncodedString()
    }

    /// The element at `start`, which must have `tag` and end by `end`.
    @_optimize(size)  // a cold path: configuration, a handshake's check, a refusal's words
    private static func element(_ bytes: [UInt8], at start: Int, end: Int, tag: UInt8, what: String) throws(PublicKeyPinningError) -> Element {
        guard start < end else { throw malformed("the bytes end before " + what) }
        guard bytes[start] == tag else {
            throw malformed("\(what) has tag \(hex(bytes[start])), not \(hex(tag))")
        }
        guard start + 1 < end else { throw malformed("the bytes end inside the length of " + what) }
        let first = bytes[start + 1]
        var content = start + 2
        var length = 0
        if first < 0x80 {
            length = Int(first)
        } else {
            let count = Int(first & 0x7F)
            guard count != 0 else { throw malformed(what + " has an indefinite length (BER, not DER)") }
            guard count <= 4 else { throw malformed("\(what) has a length of \(count) bytes") }
            guard count <= end - content else { throw malformed("the bytes end inside the length of " + what) }
            for index in content..<(content + count) {
                length = length << 8 | Int(bytes[index])
            }
            guard bytes[content] != 0, length >= 0x80 else { throw malformed(what + " has a length that is not minimally encoded") }
            content += count
        }
        guard length <= end - content else {
            throw malformed("\(what) claims \(length) bytes, \(end - content) are left")
        }
        return (content, content + length)
    }

    /// `Array(bytes)`, compiled once for every type: the standard library's own copy runs,
    /// not one specialized here (a certificate is read once per handshake).
    @_semantics("optimize.sil.specialize.generic.never")
    @inline(never)
    private static func bytes<Bytes: Sequence>(_ bytes: Bytes) -> [Bytes.Element] {
        Array(bytes)
    }

    /// `byte` as `0x` and two hexadecimal digits.
    @inline(never)  // two uses in one sentence share one copy
    private static func hex(_ byte: UInt8) -> String {
        (byte < 0x10 ? "0x0" : "0x") + String(byte, radix: 16)
    }

    /// Why a certificate's key could not be read. Kept out of line: every check shares it.
    @inline(never)
    private static func malformed(_ reason: String) -> PublicKeyPinningError {
        PublicKeyPinningError(.malformedCertificate, host: "", message: reason, servedPins: [])
    }
}
