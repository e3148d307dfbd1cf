import Foundation
import XCTest

/// The DocC articles' code compiles: every ```swift block of every catalog under
/// Sources/ must appear, line for line, in a Swift file of Tests/ (DocumentationSnippets,
/// SeedUsageTests), which the test target compiles.
final class DocumentationTests: XCTestCase {
    private let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testEveryArticleCodeBlockIsCompiledInTheTests() throws {
        let corpus = try swiftFiles(under: root.appendingPathComponent("Tests")).map { try normalized(String(contentsOf: $0, encoding: .utf8)) }
        var checked = 0
        for article in try articles() {
            let text = try String(contentsOf: article, encoding: .utf8)
            for (index, block) in swiftBlocks(in: text).enumerated() {
                let lines = normalized(block)
                if lines.first?.hasPrefix("// Package.swift") == true || lines.isEmpty { continue }
                checked += 1
                XCTAssertTrue(
                    corpus.contains { contains($0, lines) },
                    "\(article.lastPathComponent), swift block \(index + 1) is not compiled by any test file:\n\(block)"
                )
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 14, "the articles' code blocks were not found")
    }

    func testTheCoreCatalogHasTheArticlesUsersLookFor() throws {
        let names = Set(try articles().map(\.lastPathComponent))
        for expected in ["EasyNetwork.md", "GettingStarted.md", "EmbeddingInAnSDK.md",
                         "TestingWithEasyNetworkTesting.md", "MigratingToEasyNetwork.md"] {
            XCTAssertTrue(names.contains(expected), "missing article \(expected)")
        }
    }

    // MARK: Helpers

    private func articles() throws -> [URL] {
        let sources = root.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL } ?? []
        return files.filter { $0.pathExtension == "md" && $0.path.contains(".docc/") }
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
