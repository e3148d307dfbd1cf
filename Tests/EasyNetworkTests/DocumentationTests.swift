import Foundation
import XCTest

/// The documentation's code compiles: every ```swift block of README.md and of every DocC
/// catalog under Sources/ must appear, line for line, in a Swift file of Tests/
/// (ReadmeSnippets, DocumentationSnippets, SeedUsageTests), which the test targets compile.
/// A block that is a `Package.swift` excerpt is checked against the package's products
/// instead, and its versions against CHANGELOG.md.
final class DocumentationTests: XCTestCase {
    private let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testEveryArticleCodeBlockIsCompiledInTheTests() throws {
        let corpus = try swiftFiles(under: root.appendingPathComponent("Tests")).map { try normalized(String(contentsOf: $0, encoding: .utf8)) }
        var checked = 0
        for article in try articles() {
            let text = try String(contentsOf: article, encoding: .utf8)
            for (index, block) in swiftBlocks(in: text).enumerated() {
                var lines = normalized(block)
                if lines.first?.hasPrefix("// Package.swift") == true || lines.isEmpty { continue }
                if let caption = lines.first, caption.hasPrefix("// Sources/") || caption.hasPrefix("// Tests/") {
                    lines.removeFirst()  // the file the block goes in
                }
                checked += 1
                XCTAssertTrue(
                    corpus.contains { contains($0, lines) },
                    "\(article.lastPathComponent), swift block \(index + 1) is not compiled by any test file:\n\(block)"
                )
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 30, "the documentation's code blocks were not found")
    }

    /// Issue 20: the README's blocks were never compiled (a `ProfileRequest` defined
    /// nowhere, fragments with `...`). They are checked with the articles'; this pins that
    /// README.md is among the files read and that its Quick start is there.
    func testTheReadmeIsReadWithTheArticlesAndHasACompleteQuickStart() throws {
        let readme = root.appendingPathComponent("README.md")
        XCTAssertTrue(try articles().contains(readme))
        let blocks = swiftBlocks(in: try String(contentsOf: readme, encoding: .utf8))
        XCTAssertTrue(blocks.contains { $0.contains("dispatchMain()") }, "the Quick start's executable keeps the main queue running")
        XCTAssertTrue(blocks.contains { $0.contains("final class SignInOperation") }, "the Quick start's operation")
    }

    /// `Package.swift` excerpts name products that exist, and install a version no older
    /// than the last release of CHANGELOG.md (a Podfile's tag too).
    func testPackageExcerptsNameRealProductsAndCurrentVersions() throws {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let products = Set(captures(of: #"\.library\(name: "([^"]+)""#, in: manifest))
        XCTAssertTrue(products.contains("EasyNetwork"), "products read from Package.swift: \(products)")
        let changelog = try String(contentsOf: root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let released = try XCTUnwrap(captures(of: #"(?m)^## \[(\d+\.\d+\.\d+)\]"#, in: changelog).first)
        var named = 0
        for article in try articles() {
            let text = try String(contentsOf: article, encoding: .utf8)
            for product in captures(of: #"\.product\(name: "([^"]+)", package: "EasyNetwork"\)"#, in: text) {
                named += 1
                XCTAssertTrue(products.contains(product), "\(article.lastPathComponent) names the product \(product), which Package.swift does not have")
            }
            for version in captures(of: #"from: "([0-9.]+)""#, in: text) + captures(of: #":tag => '([0-9.]+)'"#, in: text) {
                XCTAssertFalse(version.compare(released, options: .numeric) == .orderedAscending,
                               "\(article.lastPathComponent) installs \(version), older than the last release \(released)")
            }
        }
        XCTAssertGreaterThan(named, 5)
    }

    func testTheCoreCatalogHasTheArticlesUsersLookFor() throws {
        let names = Set(try articles().map(\.lastPathComponent))
        for expected in ["EasyNetwork.md", "GettingStarted.md", "EmbeddingInAnSDK.md",
                         "TestingWithEasyNetworkTesting.md", "MigratingToEasyNetwork.md",
                         "RequestsAndResponses.md", "ErrorsAndGuarantees.md", "EnvelopesAndBusinessCodes.md",
                         "InterceptorsRetriesAndTimeouts.md", "LinuxNotes.md", "Performance.md"] {
            XCTAssertTrue(names.contains(expected), "missing article \(expected)")
        }
    }

    // MARK: Helpers

    /// README.md and the articles of every DocC catalog.
    private func articles() throws -> [URL] {
        let sources = root.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL } ?? []
        return [root.appendingPathComponent("README.md")] + files.filter { $0.pathExtension == "md" && $0.path.contains(".docc/") }
    }

    /// The first capture group of every match of `pattern` in `text`.
    private func captures(of pattern: String, in text: String) -> [String] {
        guard let expression = try? NSRegularExpression(pattern: pattern) else {
            XCTFail("bad pattern \(pattern)")
            return []
        }
        let range = NSRange(text.startIndex..., in: text)
        return expression.matches(in: text, range: range).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    private func swiftFiles(under folder: URL) throws -> [URL] {
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL } ?? []
        return files.filter { $0.pathExtension == "swift" }
    }

    /// The text of each fenced block tagged `swift`.
    private func swiftBlocks(in text: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = []
            } else if current != nil, trimmed == "```" {
                blocks.append(current.map { $0.joined(separator: "\n") } ?? "")
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// Lines without indentation, blank lines or imports (an article may show an
    /// `internal import`; the test file imports at its top).
    private func normalized(_ text: String) -> [String] {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { line in
            !line.isEmpty && !line.hasPrefix("import ") && !line.hasPrefix("internal import ")
        }
    }

    private func contains(_ haystack: [String], _ needle: [String]) -> Bool {
        guard !needle.isEmpty, needle.count <= haystack.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if Array(haystack[start..<(start + needle.count)]) == needle { return true }
        }
        return false
    }
}
