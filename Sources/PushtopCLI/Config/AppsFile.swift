import Foundation
import PushtopConfig
import PushtopKit
import PushtopServer

/// The apps file of `pushtop serve --apps-file PATH` (or `PUSHTOP_APPS_FILE`): one `[[apps]]` table per app.
///
/// ```toml
/// [[apps]]
/// id = "1"
/// key = "shop-key"
/// secret = "shop-secret"
/// name = "Shop"
/// max_connections = 1000          # more are refused with 4004
/// client_events = true            # false: every client event is refused with pusher:error
/// max_presence_members = 100
/// max_event_bytes = 10240         # larger events: 413 (HTTP API), pusher:error (client events)
/// api_requests_per_second = 50    # more: 429
/// client_events_per_second = 10   # per connection; more: pusher:error 4301
/// webhook_batching = true         # false: one event per webhook request
///
/// [[apps.webhooks]]
/// url = "https://shop.example.com/pusher/webhooks"
/// event_types = ["channel_occupied", "channel_vacated"]   # all of them when left out
///
/// [[apps]]
/// id = "2"
/// key = "blog-key"
/// secret = "blog-secret"
/// enabled = false                 # connections get 4003, the HTTP API 403
/// ```
///
/// A problem names the file, the line and the key: `apps.toml:9: apps[0].max_connections: expected a positive
/// integer, found -1`. A file with any problem is refused as a whole.
enum AppsFile {
    /// The keys of an `[[apps]]` table, exactly as written in the documentation (configs stay portable).
    static let knownKeys = [
        "id", "key", "secret", "name", "enabled", "max_connections", "client_events", "max_presence_members",
        "max_event_bytes", "webhooks", "api_requests_per_second", "client_events_per_second",
        "encryption_master_key_base64", "webhook_batching",
    ]
    /// The keys of an `[[apps.webhooks]]` table.
    static let knownWebhookKeys = ["url", "event_types"]
    /// Pusher's webhook event types.
    static let eventTypes = [
        "channel_occupied", "channel_vacated", "member_added", "member_removed", "client_event", "cache_miss",
        "subscription_count",
    ]

    /// Reads and checks the apps file at `path`; `grace` is `--webhook-grace`, for every app's webhooks.
    static func load(path: String, webhookGrace grace: Double = 3) throws(ConfigError) -> [AppSettings] {
        guard let text = TextFile.read(path) else {
            throw ConfigError(source: path, message: "cannot read the file: \(String(cString: strerror(errno)))")
        }
        return try parse(text, path: path, webhookGrace: grace)
    }

    /// Parses an apps file's text; `path` names it in errors.
    static func parse(_ text: String, path: String, webhookGrace grace: Double = 3) throws(ConfigError) -> [AppSettings]
    {
        let root: TOMLNode
        do {
            root = try TOMLDocument.parse(text)
        } catch {
            throw ConfigError(
                source: path, message: "not valid TOML: \(error.message) (column \(error.column))",
                line: error.line > 0 ? error.line : nil)
        }
        let lines = AppsFileLines(text)
        for (key, _) in root.tableEntries ?? [] where key != "apps" {
            throw ConfigError(
                source: path, key: key, message: "unknown key (the file holds [[apps]] tables only)",
                line: lines.line(ofTopLevel: key))
        }
        guard let value = root["apps"] else {
            throw ConfigError(source: path, message: "no [[apps]] table: the file must define at least one app")
        }
        guard case .array(let tables) = value, !tables.isEmpty else {
            throw ConfigError(
                source: path, key: "apps", message: "expected [[apps]] tables, found \(value.typeName)",
                line: lines.line(ofTopLevel: "apps"))
        }
        var apps: [AppSettings] = []
        var seenIDs: [String: Int] = [:]
        var seenKeys: [String: Int] = [:]
        for (index, table) in tables.enumerated() {
            let reader = AppReader(source: path, index: index, lines: lines, grace: grace)
            let app = try reader.read(table)
            if let first = seenIDs[app.credentials.id] {
                throw reader.error("id", "apps[\(first)] has the id '\(app.credentials.id)' already")
            }
            if let first = seenKeys[app.credentials.key] {
                throw reader.error("key", "apps[\(first)] has the key '\(app.credentials.key)' already")
            }
            seenIDs[app.credentials.id] = index
            seenKeys[app.credentials.key] = index
            apps.append(app)
        }
        return apps
    }
}

/// Reads one `[[apps]]` table, checking each key.
private struct AppReader {
    var source: String
    var index: Int
    var lines: AppsFileLines
    var grace: Double

    func error(_ key: String, _ message: String, webhook: Int? = nil) -> ConfigError {
        let name = webhook.map { "apps[\(index)].webhooks[\($0)].\(key)" } ?? "apps[\(index)].\(key)"
        return ConfigError(
            source: source, key: name, message: message,
            line: lines.line(app: index, webhook: webhook, key: key))
    }

    func read(_ table: TOMLNode) throws(ConfigError) -> AppSettings {
        guard let entries = table.tableEntries else {
            throw ConfigError(
                source: source, key: "apps[\(index)]", message: "expected a table, found \(table.typeName)",
                line: lines.line(app: index, webhook: nil, key: nil))
        }
        var id: String?
        var key: String?
        var secret: String?
        var name: String?
        var enabled = true
        var limits = PusherLimits()
        var webhooks = WebhookConfiguration()
        webhooks.grace = grace
        var masterKey = AppCredentials.demoEncryptionMasterKey
        for (field, value) in entries {
            switch field {
            case "id": id = try numericID(field, value)
            case "key": key = try nonEmpty(field, value)
            case "secret": secret = try nonEmpty(field, value)
            case "name": name = try string(field, value)
            case "enabled": enabled = try bool(field, value)
            case "webhook_batching":
                // Pusher posts batches; false posts one event per request.
                if try !bool(field, value) {
                    webhooks.maxBatchSize = 1
                    webhooks.batchWindow = 0
                }
            case "max_connections": limits.maxConnections = try positive(field, value)
            case "client_events": limits.clientEventsEnabled = try bool(field, value)
            case "max_presence_members": limits.maxPresenceMembers = try positive(field, value)
            case "max_event_bytes": limits.maxEventDataBytes = try positive(field, value)
            case "api_requests_per_second": limits.apiRequestsPerSecond = try positive(field, value)
            case "client_events_per_second": limits.clientEventsPerSecond = try positive(field, value)
            case "encryption_master_key_base64": masterKey = try masterKeyBytes(field, value)
            case "webhooks": try addWebhooks(field, value, to: &webhooks)
            default:
                throw error(field, "unknown key (known: \(AppsFile.knownKeys.joined(separator: ", ")))")
            }
        }
        guard let id else { throw error("id", "missing: every app needs an id") }
        guard let key else { throw error("key", "missing: every app needs a key") }
        guard let secret else { throw error("secret", "missing: every app needs a secret") }
        return AppSettings(
            credentials: AppCredentials(id: id, key: key, secret: secret, encryptionMasterKey: masterKey), name: name,
            enabled: enabled, limits: limits, webhooks: webhooks)
    }

    /// An app id: digits, as a string or an integer.
    private func numericID(_ field: String, _ value: TOMLNode) throws(ConfigError) -> String {
        let id: String
        switch value {
        case .string(let text): id = text
        case .integer(let number): id = String(number)
        default: throw error(field, "expected a numeric id (\"1\" or 1), found \(value.typeName)")
        }
        guard !id.isEmpty, id.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw error(field, "expected a numeric id (Pusher's are; the server SDKs refuse others)")
        }
        return id
    }

    private func masterKeyBytes(_ field: String, _ value: TOMLNode) throws(ConfigError) -> [UInt8] {
        let text = try string(field, value)
        guard let data = Data(base64Encoded: text), data.count == 32 else {
            throw error(field, "expected 32 bytes, base64-encoded")
        }
        return Array(data)
    }

    /// The `[[apps.webhooks]]` tables: each URL once, with its event types if it names some.
    private func addWebhooks(
        _ field: String, _ value: TOMLNode, to webhooks: inout WebhookConfiguration
    ) throws(ConfigError) {
        guard case .array(let hooks) = value else {
            throw error(field, "expected [[apps.webhooks]] tables, found \(value.typeName)")
        }
        for (number, hook) in hooks.enumerated() {
            let (url, types) = try webhook(hook, number: number)
            guard !webhooks.urls.contains(url) else {
                throw error("url", "'\(url)' is listed twice", webhook: number)
            }
            webhooks.urls.append(url)
            if let types { webhooks.eventTypes[url] = types }
        }
    }

    private func webhook(_ table: TOMLNode, number: Int) throws(ConfigError) -> (String, Set<String>?) {
        guard let entries = table.tableEntries else {
            throw error("webhooks", "expected a table with url (and event_types), found \(table.typeName)")
        }
        var url: String?
        var types: Set<String>?
        for (field, value) in entries {
            switch field {
            case "url":
                let text = try string(field, value, webhook: number)
                guard let parsed = URL(string: text), let scheme = parsed.scheme, ["http", "https"].contains(scheme),
                    parsed.host?.isEmpty == false
                else {
                    throw error(field, "'\(text)' is not an http(s) URL", webhook: number)
                }
                url = text
            case "event_types":
                guard case .array(let items) = value else {
                    throw error(field, "expected an array of event types, found \(value.typeName)", webhook: number)
                }
                var names: Set<String> = []
                for item in items {
                    guard case .string(let name) = item, AppsFile.eventTypes.contains(name) else {
                        throw error(
                            field, "expected event types among \(AppsFile.eventTypes.joined(separator: ", "))",
                            webhook: number)
                    }
                    names.insert(name)
                }
                types = names
            default:
                throw error(
                    field, "unknown key (known: \(AppsFile.knownWebhookKeys.joined(separator: ", ")))",
                    webhook: number)
            }
        }
        guard let url else { throw error("url", "missing: every webhook needs a url", webhook: number) }
        return (url, types)
    }

    private func string(_ field: String, _ value: TOMLNode, webhook: Int? = nil) throws(ConfigError) -> String {
        guard case .string(let text) = value else {
            throw error(field, "expected a string, found \(value.typeName)", webhook: webhook)
        }
        return text
    }

    private func nonEmpty(_ field: String, _ value: TOMLNode) throws(ConfigError) -> String {
        let text = try string(field, value)
        guard !text.isEmpty else { throw error(field, "must not be empty") }
        return text
    }

    private func bool(_ field: String, _ value: TOMLNode) throws(ConfigError) -> Bool {
        guard case .bool(let flag) = value else {
            throw error(field, "expected true or false, found \(value.typeName)")
        }
        return flag
    }

    private func positive(_ field: String, _ value: TOMLNode) throws(ConfigError) -> Int {
        guard case .integer(let number) = value else {
            throw error(field, "expected a positive integer, found \(value.typeName)")
        }
        guard number > 0 else { throw error(field, "expected a positive integer, found \(number)") }
        return number
    }
}
