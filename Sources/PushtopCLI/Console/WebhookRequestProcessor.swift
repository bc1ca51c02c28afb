import Foundation
import Logging
import NIOHTTP1
import PusherProtocol
import Synchronization

/// What the webhook receiver does with each request: verifies it, audits it, forwards it, turns it into rows and
/// chooses the sender's answer. Shared by every connection (its mutable state behind locks).
///
/// The sender's answer: with `--forward`, the first target's status, headers and body (502 when it cannot be reached),
/// whatever pushtop found (pushtop sits in front of the app transparently; the rows show the rejection or problem).
/// Without: 401 when the signature does not verify, 400 when the body is not JSON, 405 for other methods than `POST`,
/// else 200 `{}`.
final class WebhookRequestProcessor: Sendable {
    /// An answer to the sender.
    struct Answer: Sendable {
        var status: Int
        var headers: [(String, String)]
        var body: [UInt8]

        static func json(_ status: Int, _ text: String) -> Answer {
            Answer(status: status, headers: [("Content-Type", "application/json")], body: Array(text.utf8))
        }
    }

    /// The largest body read (1 MiB): larger ones are answered 413.
    let bodyLimit: Int
    /// The most requests in progress at once: beyond, 503.
    let concurrencyLimit: Int
    /// The most body bytes of requests in progress (each counted at its declared length, or the bound when it has
    /// none): beyond, 503. Parsing and rows take a few times the body, so this bounds the receiver's memory.
    let memoryBudget: Int

    private let settings: WebhookReceiverSettings
    private let check: WebhookSignatureCheck
    private let forwarder: WebhookForwarder?
    private let deliver: @Sendable ([ConsoleRow]) -> Void
    private let auditor = Mutex(WebhookAuditor())
    /// Requests in progress and the bytes their bodies may take.
    private let inProgress = Mutex((requests: 0, bytes: 0))
    /// Requests answered 503 since the last `overloaded` row.
    private let refused = Mutex(0)
    private let logger: Logger

    init(
        settings: WebhookReceiverSettings, forwarder: WebhookForwarder?, logger: Logger,
        bodyLimit: Int = 1 << 20, concurrencyLimit: Int = 64, memoryBudget: Int = 8 << 20,
        deliver: @escaping @Sendable ([ConsoleRow]) -> Void
    ) {
        self.settings = settings
        self.check = WebhookSignatureCheck(credentials: settings.credentials)
        self.forwarder = forwarder
        self.logger = logger
        self.bodyLimit = bodyLimit
        self.concurrencyLimit = concurrencyLimit
        self.memoryBudget = memoryBudget
        self.deliver = deliver
    }

    static func nowMs() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// Takes a place for one request of up to `bytes` (its declared length, or the bound); `false` (and counted)
    /// when ``concurrencyLimit`` requests or ``memoryBudget`` bytes are already in progress.
    func admit(bytes: Int) -> Bool {
        let admitted = inProgress.withLock { n in
            guard n.requests < concurrencyLimit, n.bytes + bytes <= max(memoryBudget, bodyLimit) else { return false }
            n.requests += 1
            n.bytes += bytes
            return true
        }
        if !admitted { refused.withLock { $0 += 1 } }
        return admitted
    }

    /// Gives back the place of a request that is done.
    func release(bytes: Int) {
        inProgress.withLock { n in
            n.requests = max(0, n.requests - 1)
            n.bytes = max(0, n.bytes - bytes)
        }
    }

    /// Shows the requests refused with 503 since the last call, as one `overloaded` row (nothing when none were).
    func reportOverload() {
        let count = refused.withLock { n in
            defer { n = 0 }
            return n
        }
        guard count > 0 else { return }
        var row = WebhookRows.problem(
            WebhookProblem.overloaded,
            cause:
                "\(count) request(s) answered 503: \(concurrencyLimit) requests or \(memoryBudget >> 20) MiB of bodies in progress",
            timeMs: Self.nowMs(), appID: nil, remoteAddress: nil)
        row.dropped = count
        deliver([row])
    }

    /// Shows a body refused with 413.
    func tooLarge(head: HTTPRequestHead, bytes: Int?, remoteAddress: String?) {
        let size = bytes.map { "\($0) bytes" } ?? "over \(bodyLimit) bytes"
        var row = WebhookRows.problem(
            WebhookProblem.bodyTooLarge,
            cause: "\(head.method.rawValue) \(head.uri): \(size), the limit is \(bodyLimit)",
            timeMs: Self.nowMs(), appID: nil, remoteAddress: remoteAddress)
        row.url = head.uri
        row.status = 413
        deliver([row])
    }

    /// Handles one whole request: its rows are delivered, the answer returned.
    func process(_ request: WebhookForwarder.Request, remoteAddress: String?) async -> Answer {
        let receivedAt = Self.nowMs()
        async let forwarded = forwarder?.forward(request) ?? []
        var rows: [ConsoleRow] = []
        var answer = Answer.json(200, "{}")
        var vacated: (appID: String?, channels: [String]) = (nil, [])
        if request.method == "POST" {
            answer = await inspect(
                request, receivedAt: receivedAt, remoteAddress: remoteAddress, rows: &rows, vacated: &vacated)
        } else {
            answer = Answer.json(405, #"{"error":"webhooks are POSTed"}"#)
        }
        let outcomes = await forwarded
        let key = request.headers.first { $0.0.caseInsensitiveCompare("X-Pusher-Key") == .orderedSame }?.1
        let names = JSONValue.parseIfJSON(String(decoding: request.body, as: UTF8.self)).map(Self.eventNames)
        for outcome in outcomes {
            var row = Self.row(for: outcome, events: names, timeMs: Self.nowMs(), remoteAddress: remoteAddress)
            // The app the request named (verified or not), as on its other rows.
            row.appID = rows.first?.appID ?? check.credentials.first { $0.key == key }?.appID
            rows.append(row)
        }
        if let first = outcomes.first {
            switch first.result {
            case .success(let target):
                answer = Answer(
                    status: target.status, headers: WebhookForwarder.passedHeaders(target.headers), body: target.body)
            case .failure(let error):
                answer = Answer.json(502, JSONValue.object(["error": .string(error.description)]).jsonString)
            }
        }
        if !rows.isEmpty { deliver(rows) }
        if let ask = settings.subscriberCount, !vacated.channels.isEmpty {
            // Asked once the rows are out, without delaying the sender's answer.
            let deliver = self.deliver
            Task {
                for channel in vacated.channels {
                    guard let count = await ask(vacated.appID, channel), count > 0 else { continue }
                    deliver([
                        WebhookAuditor.vacatedWhileSubscribed(
                            channel: channel, subscribers: count, timeMs: Self.nowMs(), appID: vacated.appID,
                            remoteAddress: remoteAddress)
                    ])
                }
            }
        }
        return answer
    }

    private func inspect(
        _ request: WebhookForwarder.Request, receivedAt: Int64, remoteAddress: String?, rows: inout [ConsoleRow],
        vacated: inout (appID: String?, channels: [String])
    ) async -> Answer {
        func header(_ name: String) -> String? {
            request.headers.first { $0.0.caseInsensitiveCompare(name) == .orderedSame }?.1
        }
        let body = String(validating: request.body, as: UTF8.self).flatMap { JSONValue.parseIfJSON($0) }
        let verdict = check.check(
            key: header("X-Pusher-Key"), signature: header("X-Pusher-Signature"), body: request.body)
        var appID: String?
        switch verdict {
        case .rejected(let id, let expected, let received, let cause):
            var row = ConsoleRow(type: .webhookRejected, timeMs: receivedAt)
            row.source = .webhook
            row.appID = id
            row.remoteAddress = remoteAddress
            row.url = request.uri
            row.events = body.map(Self.eventNames)
            row.expectedSignature = expected
            row.receivedSignature = received
            row.cause = cause
            rows.append(row)
            return Answer.json(401, JSONValue.object(["error": .string("signature: \(cause)")]).jsonString)
        case .verified(let credential):
            appID = credential.appID
        case .unchecked:
            break
        }
        guard let body else {
            var row = WebhookRows.problem(
                WebhookProblem.notJSON,
                cause: "the body (\(request.body.count) bytes) is not JSON: \(Self.excerpt(request.body))",
                timeMs: receivedAt, appID: appID, remoteAddress: remoteAddress)
            row.url = request.uri
            rows.append(row)
            return Answer.json(400, #"{"error":"the body is not JSON"}"#)
        }
        let audit = auditor.withLock {
            $0.audit(body, receivedAtMs: receivedAt, appID: appID, remoteAddress: remoteAddress)
        }
        rows += audit.rows
        vacated = (appID, audit.vacated)
        return Answer.json(200, "{}")
    }

    /// The names of a payload's events (`[]` when it has none).
    static func eventNames(_ body: JSONValue) -> [String] {
        let events = body["events"]?.arrayValue ?? body.arrayValue ?? (body["name"] != nil ? [body] : [])
        return events.compactMap { $0["name"]?.stringValue }
    }

    /// The row of one forward: `webhook_sent` (2xx), `webhook_failed` (any other status), or a `forward_failed` problem.
    static func row(
        for outcome: WebhookForwarder.Outcome, events: [String]?, timeMs: Int64, remoteAddress: String?
    ) -> ConsoleRow {
        switch outcome.result {
        case .success(let answer):
            var row = ConsoleRow(
                type: (200..<300).contains(answer.status) ? .webhookSent : .webhookFailed, timeMs: timeMs)
            row.source = .webhook
            row.url = outcome.url
            row.status = answer.status
            row.events = events
            row.remoteAddress = remoteAddress
            if !(200..<300).contains(answer.status), !answer.body.isEmpty { row.reason = excerpt(answer.body) }
            return row
        case .failure(let error):
            var row = WebhookRows.problem(
                WebhookProblem.forwardFailed, cause: error.reason, timeMs: timeMs, appID: nil,
                remoteAddress: remoteAddress)
            row.url = outcome.url
            row.events = events
            return row
        }
    }

    /// The start of a body, as text, for a row.
    static func excerpt(_ bytes: [UInt8]) -> String {
        let head = String(decoding: bytes.prefix(200), as: UTF8.self)
        return bytes.count > 200 ? head + "…" : head
    }
}
