import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The identity of one running task, known to its completion handler, under which the
/// session delegate files what it learns about the task. It has no lock of its own:
/// `key` is written before the task resumes and read after it completed.
final class TaskRecord: @unchecked Sendable {
    let request: URLRequest
    var key: ObjectIdentifier?

    init(request: URLRequest) {
        self.request = request
    }
}
