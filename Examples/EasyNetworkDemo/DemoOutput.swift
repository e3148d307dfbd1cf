import EasyNetwork
import Foundation

/// Writes a line to standard output at once (unbuffered, so progress bars, log lines and
/// step results keep their order also when the output goes to a pipe).
func say(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

/// Whether standard output is a terminal (else progress bars draw only their end).
let outputIsTerminal = isatty(STDOUT_FILENO) == 1

/// Draws a progress bar on one terminal line (`fraction` of 1).
func bar(_ label: String, _ fraction: Double) {
    guard outputIsTerminal || fraction >= 1 else { return }
    let width = 30
    let filled = max(0, min(width, Int((fraction * Double(width)).rounded(.down))))
    let text = "   \(label) [" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "] "
        + String(format: "%3.0f%%", fraction * 100)
    FileHandle.standardOutput.write(Data(("\r" + text).utf8))
}

/// What failed, labelled for what it is: an HTTP status, a business code inside a 200, a
/// transport failure, a cancellation, … , then the error's own sentence (which quotes no
/// text of the body), then the server's own message, shown here on purpose.
func describe(_ error: Error) -> String {
    guard let error = error as? NetworkError else { return "error: \(error.localizedDescription)" }
    let label: String
    switch error.kind {
    case .unacceptableStatus: label = "HTTP status \(error.statusCode.map(String.init) ?? "unknown")"
    case .business: label = "business code \(error.businessCode ?? "none")"
    case .transport: label = error.isTimeout ? "timeout" : "transport failure"
    case .cancelled: label = "cancelled"
    case .decoding: label = "unreadable response"
    case .encoding: label = "unencodable request"
    case .invalidRequest: label = "invalid request"
    case .notConfigured: label = "no base URL"
    case .authentication: label = "authentication failure"
    }
    return label + ": " + error.localizedDescription + (error.serverMessage.map { " The server said: \($0)" } ?? "")
}
