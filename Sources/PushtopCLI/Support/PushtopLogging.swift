import Foundation
import Logging

/// Where pushtop's logs go: stderr for headless commands, a file (or nowhere) for the dashboard, whose
/// screen must never receive a log line.
enum PushtopLogging {
    enum Destination {
        case standardError
        case file(String)
        case none
    }

    /// Sets up swift-log once. The level is `level`, else `PUSHTOP_LOG_LEVEL` (trace…critical), else warning;
    /// `format` applies to stderr (`serve --log-format json`: one object per line).
    static func bootstrap(_ destination: Destination, level: Logger.Level? = nil, format: LogFormat = .text) {
        let level =
            level
            ?? ProcessInfo.processInfo.environment["PUSHTOP_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:))
            ?? .warning
        switch destination {
        case .standardError where format == .json:
            LoggingSystem.bootstrap { label in
                var handler = JSONLogHandler(label: label)
                handler.logLevel = level
                return handler
            }
        case .standardError:
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
        case .file(let path):
            if let stream = FileLogStream(path: path) {
                LoggingSystem.bootstrap { label in
                    var handler = StreamLogHandler(label: label, stream: stream)
                    handler.logLevel = level
                    return handler
                }
            } else {
                LoggingSystem.bootstrap { _ in SwiftLogNoOpLogHandler() }
            }
        case .none:
            LoggingSystem.bootstrap { _ in SwiftLogNoOpLogHandler() }
        }
    }
}

/// An append-only log file for swift-log's stream handler.
final class FileLogStream: TextOutputStream, @unchecked Sendable {
    // FileHandle writes are atomic per call; the handle itself is never reassigned.
    private let handle: FileHandle

    init?(path: String) {
        if !FileManager.default.fileExists(atPath: path) {
            _ = FileManager.default.createFile(atPath: path, contents: nil)
        }
        guard let handle = FileHandle(forWritingAtPath: path) else { return nil }
        handle.seekToEndOfFile()
        self.handle = handle
    }

    func write(_ string: String) {
        handle.write(Data(string.utf8))
    }
}
