import AsyncHTTPClient
import Logging
import NIOCore
import PusherProtocol
import PushtopDashboard
import Synchronization

/// Reads one `pushtop serve` node's debug feed (`GET /apps/{id}/console`, server-sent events signed with the app
/// secret): reports its state, the `hello` that opens it and the rows as they arrive; reconnects with backoff
/// (signed afresh each time) until cancelled, or until an answer that trying again cannot change (a wrong secret,
/// no feed there).
///
/// Memory is bounded: rows are handed on as each chunk of the stream arrives (a slow consumer slows the reading,
/// and the server drops and reports the gap), and the parser drops lines past its bound.
public final class ConsoleFeedClient: Sendable {
    /// What the client reports, in order.
    public enum Event: Sendable, Hashable {
        case state(ConsoleSourceStatus.State)
        case hello(ConsoleSnapshot, cluster: Bool)
        case rows([ConsoleRow])
    }

    /// Delays between attempts: `initial`, doubled after each failure up to `maximum`; back to `initial` once a
    /// feed opened.
    public struct Backoff: Sendable, Hashable {
        public var initial: Duration
        public var maximum: Duration
        public init(initial: Duration = .milliseconds(250), maximum: Duration = .seconds(8)) {
            self.initial = initial
            self.maximum = maximum
        }
    }

    public let endpoint: ConsoleFeedEndpoint
    /// Pass on only the rows of the node that answered (and rows with no node): set when several nodes of one
    /// cluster are read, since with `--redis` every node's feed carries every node's rows.
    public let ownNodeOnly: Bool
    private let httpClient: HTTPClient
    private let logger: Logger
    private let backoff: Backoff
    private let unreadable = Atomic<Int>(0)

    public init(
        endpoint: ConsoleFeedEndpoint, ownNodeOnly: Bool = false, httpClient: HTTPClient = .shared,
        backoff: Backoff = Backoff(), logger: Logger = Logger(label: "pushtop.console")
    ) {
        self.endpoint = endpoint
        self.ownNodeOnly = ownNodeOnly
        self.httpClient = httpClient
        self.backoff = backoff
        self.logger = logger
    }

    /// Events of the stream that were neither a hello nor a row (skipped).
    public var unreadableEvents: Int { unreadable.load(ordering: .relaxed) }

    /// Reads the feed until the task is cancelled or the server's answer rules the feed out; returns the last
    /// state reported (``ConsoleSourceStatus/State/failed(_:)`` or ``ConsoleSourceStatus/State/unavailable(_:)``
    /// when it gave up, the latest state when cancelled).
    @discardableResult
    public func run(_ handle: @escaping @Sendable (Event) -> Void) async -> ConsoleSourceStatus.State {
        var delay = backoff.initial
        var last = ConsoleSourceStatus.State.connecting
        func report(_ state: ConsoleSourceStatus.State) {
            guard state != last else { return }
            last = state
            handle(.state(state))
        }
        handle(.state(.connecting))
        while !Task.isCancelled {
            let outcome = await attempt(report: { report($0) }, handle: handle)
            if Task.isCancelled { break }
            switch outcome {
            case .refused(let refusal):
                report(refusal.state)
                if !refusal.retry { return refusal.state }
            case .ended(let opened, let why):
                if opened { delay = backoff.initial }
                report(.failed(why))
            }
            logger.debug("console feed retries", metadata: ["node": "\(endpoint)", "in": "\(delay)"])
            do { try await Task.sleep(for: delay) } catch { break }
            delay = min(delay * 2, backoff.maximum)
        }
        return last
    }

    private enum Outcome {
        case refused(ConsoleFeedRefusal)
        /// The stream could not be opened or ended; `opened`: it had been open.
        case ended(opened: Bool, String)
    }

    private func attempt(
        report: (ConsoleSourceStatus.State) -> Void, handle: @Sendable (Event) -> Void
    ) async -> Outcome {
        var request = HTTPClientRequest(url: endpoint.signedURL())
        request.method = .GET
        request.headers.add(name: "Accept", value: "text/event-stream")
        request.headers.add(name: "User-Agent", value: "pushtop/\(PushtopVersion.string)")
        let response: HTTPClientResponse
        do {
            response = try await httpClient.execute(request, timeout: .seconds(10))
        } catch {
            return .ended(opened: false, "cannot reach \(endpoint): \(Self.describe(error))")
        }
        let status = Int(response.status.code)
        let contentType = response.headers.first(name: "Content-Type")
        guard status == 200, contentType?.lowercased().hasPrefix("text/event-stream") == true else {
            let body = (try? await response.body.collect(upTo: 64 << 10)).map { String(buffer: $0) } ?? ""
            return .refused(
                ConsoleFeedRefusal(status: status, contentType: contentType, body: body, endpoint: endpoint))
        }
        report(.live)
        var parser = ServerSentEventParser()
        var node: String?
        do {
            for try await chunk in response.body {
                var rows: [ConsoleRow] = []
                for event in parser.feed(chunk.readableBytesView) {
                    switch ConsoleFeedMessage(event, source: endpoint.description) {
                    case .hello(let snapshot, let cluster):
                        node = snapshot.node
                        if !rows.isEmpty { handle(.rows(rows)) }
                        rows = []
                        handle(.hello(snapshot, cluster: cluster))
                    case .row(let row):
                        if !ownNodeOnly || row.node == nil || node == nil || row.node == node { rows.append(row) }
                    case .unreadable(let why):
                        unreadable.add(1, ordering: .relaxed)
                        logger.warning(
                            "console feed: skipped an event", metadata: ["node": "\(endpoint)", "why": "\(why)"])
                    }
                }
                if !rows.isEmpty { handle(.rows(rows)) }
            }
        } catch {
            return .ended(opened: true, "the feed of \(endpoint) broke: \(Self.describe(error))")
        }
        return .ended(opened: true, "\(endpoint) closed the feed")
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .readTimeout: return "no data for 90 s (not even a keepalive)"
            case .connectTimeout: return "connection timed out"
            case .remoteConnectionClosed: return "the server closed the connection"
            default: return "\(error)"
            }
        }
        let text = "\(error)"
        if text.contains("connectionRefused") || text.contains("Connection refused") { return "connection refused" }
        return text
    }
}
