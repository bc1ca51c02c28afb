import ArgumentParser
import Foundation
import Logging
import PusherChannels

/// How `pushtop serve` writes its logs.
enum LogFormat: String, ExpressibleByArgument, CaseIterable {
    /// swift-log's default: `2026-11-22T10:00:00+0000 info pushtop.server: ... message`.
    case text
    /// One JSON object per line: `time`, `level`, `label`, `message`, `metadata`, `source`.
    case json
}

/// A swift-log handler that writes one JSON object per line to stderr, for log collectors.
///
/// `{"time":"2026-11-22T10:00:00.123Z","level":"info","label":"pushtop.server","message":"listening",
/// "metadata":{"port":"6001"},"source":"PushtopServer"}`
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider? = LoggingSystem.metadataProvider

    init(label: String) {
        self.label = label
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        var object: [(String, JSONValue)] = [
            ("time", .string(Self.timestamp())),
            ("level", .string(event.level.rawValue)),
            ("label", .string(label)),
            ("message", .string(event.message.description)),
        ]
        if !merged.isEmpty { object.append(("metadata", Self.json(.dictionary(merged)))) }
        object.append(("source", .string(event.source)))
        // Keys in a fixed order (time first), so lines read well and diff well.
        let line = JSONValue.orderedObject(object) + "\n"
        FileHandle.standardError.write(Data(line.utf8))
    }

    private static func json(_ value: Logger.MetadataValue) -> JSONValue {
        switch value {
        case .string(let text): return .string(text)
        case .stringConvertible(let value): return .string(value.description)
        case .array(let items): return .array(items.map(json))
        case .dictionary(let entries): return .object(entries.mapValues(json))
        }
    }

    private static func timestamp() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date())
    }
}
