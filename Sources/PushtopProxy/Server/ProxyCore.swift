import Logging
import NIOCore
import NIOSSL
import PusherChannels
import PusherProtocol
import PushtopServer
import Synchronization

/// What every relayed connection of one proxy shares: the configuration, the console feed, the fault rules, the
/// recovery tracker, the relays by socket id and the counters.
package final class ProxyCore: Sendable {
    package let configuration: ProxyConfiguration
    let logger: Logger
    package let console: ConsoleHub
    package let faults: FaultBook
    package let recoveries: RecoveryTracker
    let ledger: DeliveryLedger
    let occupancy: ChannelOccupancy
    package let counters = RelayCounters()
    let openFiles = OpenFiles()
    let upstream: WebSocketURL
    let sslContext: NIOSSLContext?
    /// Where every upgrade, message and end is reported (a judge of clients, `pushtop conform --client`).
    let tap: WireTap?
    /// The open connections by socket id: handles, since a relay is its event loop's (``RelayHandle``).
    private let relays = Mutex<[String: RelayHandle]>([:])
    private let numbers = Atomic<Int>(0)

    init(configuration: ProxyConfiguration, logger: Logger, tap: WireTap? = nil) throws(ProxyError) {
        guard let upstream = WebSocketURL(configuration.upstream) else { throw .badUpstream(configuration.upstream) }
        self.configuration = configuration
        self.logger = logger
        self.upstream = upstream
        self.tap = tap
        if upstream.useTLS {
            do {
                sslContext = try WebSocketDialer.makeTLSContext(caFile: configuration.caFile)
            } catch {
                throw .badCAFile(path: configuration.caFile ?? "-", reason: "\(error)")
            }
        } else {
            sslContext = nil
        }
        let console = ConsoleHub(
            appID: configuration.app?.id ?? "proxy", nodeID: "proxy:\(upstream.hostHeader)", clustered: false)
        self.console = console
        faults = FaultBook(configuration.faults)
        recoveries = RecoveryTracker(timeout: configuration.recoveryTimeout) { row in console.emit { row } }
        ledger = DeliveryLedger { row in console.emit { row } }
        occupancy = ChannelOccupancy(console: console)
    }

    /// Posts a row someone may read (built already: fault rows are counted whether or not anyone listens).
    func post(_ row: ConsoleRow) {
        console.emit { row }
    }

    func nextConnectionNumber() -> Int {
        numbers.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// `relay` is open with `socketID` (called on its event loop).
    func register(socketID: String, relay: Relay) {
        let handle = RelayHandle(relay)
        relays.withLock { $0[socketID] = handle }
    }

    func unregister(socketID: String, relay: Relay) {
        relays.withLock { relays in
            if relays[socketID]?.holds(relay) == true { relays[socketID] = nil }
        }
    }

    /// The open connections' socket ids.
    package var socketIDs: [String] { relays.withLock { Array($0.keys) } }

    /// How many relayed connections are open (those the upstream gave a socket id).
    var openConnections: Int { relays.withLock { $0.count } }

    /// Logs, once in a while, that a connection failed for want of file descriptors (each failure is a notice).
    func noteOpenFailure(_ error: any Error) {
        guard OpenFiles.exhausted(by: error),
            let warning = openFiles.warning(nowMs: ConsoleClock.nowMs(), openConnections: openConnections)
        else { return }
        logger.warning("\(warning)")
    }

    var allRelays: [RelayHandle] { relays.withLock { Array($0.values) } }

    /// The open relayed connection of this number (one the upstream gave a socket id).
    func relay(number: Int) -> RelayHandle? { relays.withLock { $0.values.first { $0.number == number } } }

    /// Adds a rule now: connection rules are armed on every open connection at once.
    @discardableResult
    package func addFault(_ rule: FaultRule) -> FaultBook.Entry {
        let entry = faults.add(rule)
        logger.notice("fault rule added", metadata: ["rule": "\(entry.text)", "id": "\(entry.id)"])
        switch rule.action {
        case .close, .stall:
            for relay in allRelays { relay.onLoop { $0.arm(entry) } }
        default:
            break
        }
        return entry
    }
}

/// Messages relayed each way, connections relayed and refused.
package final class RelayCounters: Sendable {
    private let fromClient = Atomic<Int>(0)
    private let fromUpstream = Atomic<Int>(0)
    private let connections = Atomic<Int>(0)
    private let refused = Atomic<Int>(0)

    @inline(__always) func relayed(from side: RelayEnd.Side) {
        switch side {
        case .client: fromClient.wrappingAdd(1, ordering: .relaxed)
        case .upstream: fromUpstream.wrappingAdd(1, ordering: .relaxed)
        }
    }

    func connected() { connections.wrappingAdd(1, ordering: .relaxed) }
    func refusedConnection() { refused.wrappingAdd(1, ordering: .relaxed) }

    package var snapshot: (fromClient: Int, fromUpstream: Int, connections: Int, refused: Int) {
        (
            fromClient.load(ordering: .relaxed), fromUpstream.load(ordering: .relaxed),
            connections.load(ordering: .relaxed), refused.load(ordering: .relaxed)
        )
    }
}
