import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A TCP proxy on 127.0.0.1 that breaks the connections it carries on command, for tests of how a client and a
/// server hold up: cut (RST or FIN), stall, truncate, latency and bandwidth, and a listener that goes away; and,
/// from its start, drops the WebSocket frames of some opcodes the server sends, below any WebSocket library (what a
/// server that never answers a ping or a close looks like). Observing, it records what each WebSocket connection
/// showed (``Observation``), forwards a FIN as a half-close, and can route by the client's first byte to a TLS port:
/// one `host:port` that answers `ws://` and `wss://`, as a Pusher host does. Started with ``Rewriting``, it also
/// deviates from the protocol message by message (the conformance suite's deviation table): the test kit's one
/// proxy, for faults and for deviations.
///
/// ```swift
/// let proxy = try await FaultProxy.start(upstreamPort: server.port)
/// // point the client at proxy.port, then:
/// proxy.cutAll(.reset)
/// ```
public final class FaultProxy: Sendable {
    /// How a cut ends a connection.
    public enum Cut: String, Sendable, CaseIterable {
        /// `SO_LINGER` 0, then close: both peers get a TCP reset.
        case reset
        /// An orderly close: both peers read end-of-file (no WebSocket close handshake).
        case fin
    }

    /// The port clients connect to.
    public let port: Int
    /// The server the proxy forwards to (a rewriting proxy's can be set later: ``setUpstream(_:)``).
    public var upstreamPort: Int { rewriter?.hub.upstreamPort ?? firstHop }
    /// Where the TCP layer forwards to: the server, or a rewriting proxy's message layer.
    private let firstHop: Int
    /// The message layer, when rewriting.
    let rewriter: RewriteLayer?
    /// The opcodes of the server's frames that are dropped (`0x8` close, `0x9` ping, `0xA` pong).
    public let droppedServerFrames: Set<UInt8>
    /// Whether the client's connection ends (FIN) where a dropped close frame was.
    public let endsAtDroppedClose: Bool
    /// Where connections that begin with a TLS handshake go (`nil`: all go to ``upstreamPort``).
    public let tlsUpstreamPort: Int?
    /// Whether connections are observed (``connections``) and a FIN is forwarded as a half-close.
    public let observes: Bool

    private let group: any EventLoopGroup
    private let ownsGroup: Bool
    private let state: Mutex<State>
    /// See ``loseAnswers(_:)``.
    fileprivate let answersLost = Atomic<Bool>(false)
    /// One per accepted connection, in order, when observing.
    private let observations = Mutex<[Observation]>([])

    private struct State {
        var listener: (any Channel)?
        var links: [ObjectIdentifier: Link] = [:]
        var latency: Duration = .zero
        var bytesPerSecond: Int?
        var stallNewUntil: NIODeadline?
        var accepted = 0
        var closed = false
        var partitioned = false
    }

    private init(
        port: Int, upstreamPort: Int, group: any EventLoopGroup, ownsGroup: Bool, dropping: Set<UInt8>,
        endAtClose: Bool, tlsUpstreamPort: Int?, observes: Bool, rewriter: RewriteLayer?
    ) {
        self.port = port
        self.firstHop = rewriter?.port ?? upstreamPort
        self.rewriter = rewriter
        self.droppedServerFrames = dropping
        self.endsAtDroppedClose = endAtClose
        self.tlsUpstreamPort = tlsUpstreamPort
        self.observes = observes
        self.group = group
        self.ownsGroup = ownsGroup
        self.state = Mutex(State())
    }

    /// Starts a proxy to `127.0.0.1:upstreamPort`, listening on `port` (0: any free port, read back from ``port``).
    ///
    /// With `droppingServerFrames`, the server's frames with those opcodes never reach the client (connections that
    /// do not upgrade, such as the HTTP API's, pass untouched); with `endAtDroppedClose`, the client's connection
    /// ends where a dropped close frame was. With `tlsUpstreamPort`, a connection whose first byte begins a TLS
    /// handshake goes there instead (the upstream is dialled once that byte arrives). With `observing`, each
    /// connection's WebSocket traffic is recorded (``connections``) and a peer's FIN is forwarded as a half-close, so
    /// what the other peer sends after it is still carried and seen. With `rewriting`, every connection passes the
    /// proxy's message layer, which changes what ``Rewriting/rewrite`` says (`upstreamPort` 0: the server is named
    /// later, ``setUpstream(_:)``); frames are dropped from what that layer sends.
    public static func start(
        upstreamPort: Int, port: Int = 0, tlsUpstreamPort: Int? = nil, observing: Bool = false,
        droppingServerFrames: Set<UInt8> = [], endAtDroppedClose: Bool = false, rewriting: Rewriting? = nil
    ) async throws -> FaultProxy {
        var rewriter: RewriteLayer?
        if let rewriting { rewriter = try await RewriteLayer.start(upstreamPort: upstreamPort, rewriting) }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        // The listener's initializer needs the proxy, which needs the bound port: no one can connect before
        // the port is known, so the box is filled before any connection arrives.
        let box = Mutex<FaultProxy?>(nil)
        do {
            let listener = try await bindOutsideEphemeralRange(port: port, group: group) { box.withLock { $0 } }
            let proxy = FaultProxy(
                port: listener.localAddress?.port ?? port, upstreamPort: upstreamPort, group: group, ownsGroup: true,
                dropping: droppingServerFrames, endAtClose: endAtDroppedClose, tlsUpstreamPort: tlsUpstreamPort,
                observes: observing, rewriter: rewriter)
            proxy.state.withLock { $0.listener = listener }
            box.withLock { $0 = proxy }
            return proxy
        } catch {
            rewriter?.stop()
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// Binds `port`, or with 0 a free port below the kernel's ephemeral range: after ``takeDown(cutting:)`` the
    /// port must still be free for ``bringUp()``, and a port in the ephemeral range can meanwhile become the local
    /// end of some other test's outgoing connection.
    private static func bindOutsideEphemeralRange(
        port: Int, group: any EventLoopGroup,
        proxy: @escaping @Sendable () -> FaultProxy?
    ) async throws -> any Channel {
        guard port == 0 else { return try await bind(port: port, group: group, proxy: proxy) }
        let firstEphemeral =
            (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))
            .flatMap { $0.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } } ?? 32768
        let range = 10_000..<max(10_001, min(firstEphemeral, 32768))
        for _ in 0..<50 {
            if let listener = try? await bind(port: Int.random(in: range), group: group, proxy: proxy) {
                return listener
            }
        }
        return try await bind(port: 0, group: group, proxy: proxy)
    }

    private static func bind(port: Int, group: any EventLoopGroup, proxy: @escaping @Sendable () -> FaultProxy?)
        async throws -> any Channel
    {
        try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { downstream in
                guard let proxy = proxy() else { return downstream.close() }
                return proxy.accept(downstream)
            }
            .bind(host: "127.0.0.1", port: port)
            .get()
    }

    // MARK: - Faults

    /// Cuts every open connection (both sides) with a reset or an orderly close.
    public func cutAll(_ how: Cut) {
        for link in state.withLock({ Array($0.links.values) }) {
            link.cut(how)
        }
    }

    /// Stops forwarding on every open connection for `duration`, keeping the sockets open: what arrives either way
    /// is held and forwarded, in order, when the stall ends (unless a peer gave up and closed first). With
    /// `newConnections`, connections accepted meanwhile are stalled too.
    public func stall(for duration: Duration, newConnections: Bool = false) {
        let until = NIODeadline.now() + TimeAmount(duration)
        let links = state.withLock { state in
            if newConnections { state.stallNewUntil = until }
            return Array(state.links.values)
        }
        for link in links { link.stall(until: until) }
    }

    /// On every open connection, forwards only the first half of the next chunk the server sends, then closes
    /// both sides (FIN): the client reads a frame cut short, then end-of-file. (Every connection, not one: a
    /// connection the client already gave up on may still be open and must not take the fault in its place.)
    public func truncateNextServerChunk() {
        for link in state.withLock({ Array($0.links.values) }) {
            link.truncateNextServerChunk()
        }
    }

    /// Delays every chunk by `latency` and limits each direction of each connection to `bytesPerSecond`
    /// (`nil`: unlimited). Order is kept.
    public func shape(latency: Duration = .zero, bytesPerSecond: Int? = nil) {
        state.withLock {
            $0.latency = latency
            $0.bytesPerSecond = bytesPerSecond
        }
    }

    /// From now on (`false`: no longer), what the server sends back on any connection is dropped and the
    /// connection reset: requests reach the server, their answers never reach the client (a node that dies
    /// mid-answer, after it acted on the request).
    public func loseAnswers(_ lost: Bool = true) {
        answersLost.store(lost, ordering: .sequentiallyConsistent)
    }

    /// Stops listening (connections are refused) and cuts every open connection; ``bringUp()`` listens again.
    public func takeDown(cutting how: Cut = .reset) async {
        let listener = state.withLock { state -> (any Channel)? in
            defer { state.listener = nil }
            return state.listener
        }
        try? await listener?.close()
        cutAll(how)
    }

    /// A partition that keeps the port: resets every open connection, and every new one until ``heal()``. (After
    /// ``takeDown(cutting:)`` another socket may take the released port, and ``bringUp()`` then fails.)
    public func partition() {
        state.withLock { $0.partitioned = true }
        cutAll(.reset)
    }

    /// Ends a ``partition()``: new connections are forwarded again.
    public func heal() {
        state.withLock { $0.partitioned = false }
    }

    /// Listens again on the same port after ``takeDown(cutting:)``.
    public func bringUp() async throws {
        guard state.withLock({ $0.listener == nil && !$0.closed }) else { return }
        let listener = try await Self.bind(port: port, group: group) { self }
        state.withLock { $0.listener = listener }
    }

    /// ``takeDown(cutting:)``, then ``bringUp()`` after `duration`.
    public func takeDown(for duration: Duration, cutting how: Cut = .reset) async throws {
        await takeDown(cutting: how)
        try await Task.sleep(for: duration)
        try await bringUp()
    }

    /// Connections open now.
    public var openConnections: Int { state.withLock { $0.links.count } }
    /// Connections accepted since the start.
    public var acceptedConnections: Int { state.withLock { $0.accepted } }

    /// What each connection showed, in the order they were accepted (empty unless observing).
    public var connections: [Observation] { observations.withLock { $0 } }

    /// ``shutdown()`` for a `defer`: begins it and returns.
    public func stop() {
        Task { await shutdown() }
    }

    /// Stops listening and closes every connection (a rewriting proxy's close with a WebSocket close frame first).
    public func shutdown() async {
        rewriter?.stop()
        let listener = state.withLock { state -> (any Channel)? in
            state.closed = true
            defer { state.listener = nil }
            return state.listener
        }
        try? await listener?.close()
        cutAll(.fin)
        if ownsGroup { try? await group.shutdownGracefully() }
    }

    // MARK: - Forwarding

    private func accept(_ downstream: any Channel) -> EventLoopFuture<Void> {
        let loop = downstream.eventLoop
        let (open, partitioned) = state.withLock { state -> (Bool, Bool) in
            state.accepted += 1
            return (!state.closed, state.partitioned)
        }
        guard open else { return downstream.close() }
        if partitioned, let provider = downstream as? any SocketOptionProvider {
            return provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).flatMap { downstream.close() }
        }
        var observation: Int?
        if observes {
            observation = observations.withLock { records in
                records.append(Observation())
                return records.count - 1
            }
        }
        do {
            if observes { try downstream.syncOptions?.setOption(.allowRemoteHalfClosure, value: true) }
            if let tlsUpstreamPort {
                let router = FirstByteRouter { firstByte in
                    let tls = firstByte == 0x16
                    if tls, let observation { self.observe(observation) { $0.usedTLS = true } }
                    return self.link(
                        downstream, toPort: tls ? tlsUpstreamPort : self.firstHop, observation: observation,
                        scans: !tls)
                }
                try downstream.pipeline.syncOperations.addHandler(router)
                return loop.makeSucceededVoidFuture()
            }
        } catch {
            return downstream.close().flatMapThrowing { throw error }
        }
        return link(downstream, toPort: firstHop, observation: observation, scans: true).map { _ in }
    }

    /// Dials `port` and carries `downstream` to it; a server that is not there closes `downstream`.
    private func link(_ downstream: any Channel, toPort port: Int, observation: Int?, scans: Bool)
        -> EventLoopFuture<Link>
    {
        let loop = downstream.eventLoop
        return ClientBootstrap(group: loop)
            .connect(host: "127.0.0.1", port: port)
            .flatMap { upstream in
                let link = Link(
                    proxy: self, downstream: downstream, upstream: upstream,
                    observation: observation.map { ($0, scans) })
                self.state.withLock { $0.links[ObjectIdentifier(link)] = link }
                do {
                    try downstream.pipeline.syncOperations.addHandler(Relay(link: link, direction: .toServer))
                    try upstream.pipeline.syncOperations.addHandler(Relay(link: link, direction: .toClient))
                } catch {
                    link.cut(.fin)
                    return loop.makeFailedFuture(error)
                }
                let stallUntil = self.state.withLock { $0.stallNewUntil }
                if let stallUntil, stallUntil > .now() { link.stall(until: stallUntil) }
                return loop.makeSucceededFuture(link)
            }
            .flatMapError { error in
                // The server is not there: the client sees its connection accepted, then closed.
                downstream.close().flatMapThrowing { throw error }
            }
    }

    fileprivate func observe(_ index: Int, _ change: (inout Observation) -> Void) {
        observations.withLock { change(&$0[index]) }
    }

    fileprivate func forget(_ link: Link) {
        _ = state.withLock { $0.links.removeValue(forKey: ObjectIdentifier(link)) }
    }

    fileprivate func shaping() -> (latency: Duration, bytesPerSecond: Int?) {
        state.withLock { ($0.latency, $0.bytesPerSecond) }
    }

    fileprivate enum Direction {
        case toServer, toClient
    }

    /// One client connection and its connection to the server. Touched only on their (shared) event loop, except
    /// through the methods that hop onto it.
    fileprivate final class Link: @unchecked Sendable {
        let proxy: FaultProxy
        let downstream: any Channel
        let upstream: any Channel
        let loop: any EventLoop
        // Event-loop state.
        private var queues: [Direction: [(deadline: NIODeadline, data: ByteBuffer)]] = [.toServer: [], .toClient: []]
        private var nextFree: [Direction: NIODeadline] = [:]
        private var stalledUntil: NIODeadline?
        private var closing = false
        /// The next server chunk is to be truncated. Set at once from the caller's thread (not by a hop onto the
        /// loop), so a chunk the server sends after ``FaultProxy/truncateNextServerChunk()`` returns is the one cut.
        private let truncatePending = Atomic<Bool>(false)
        /// A truncated chunk is on its way to the client: nothing more is forwarded, the close follows it.
        private var truncated = false
        /// Leaves the dropped opcodes out of what the server sends (`nil`: nothing is dropped).
        private var serverFrames: ServerFrameDropper?
        /// This connection's ``Observation`` (when observing), and the scan of its WebSocket frames (plain ones).
        private let observation: Int?
        private var observer: ConnectionObserver?

        init(proxy: FaultProxy, downstream: any Channel, upstream: any Channel, observation: (index: Int, scans: Bool)?)
        {
            self.proxy = proxy
            self.downstream = downstream
            self.upstream = upstream
            self.loop = downstream.eventLoop
            self.observation = observation?.index
            if observation?.scans == true { observer = ConnectionObserver() }
            if !proxy.droppedServerFrames.isEmpty {
                serverFrames = ServerFrameDropper(drop: proxy.droppedServerFrames, endAtClose: proxy.endsAtDroppedClose)
            }
        }

        /// Holds everything read (both ways) until `deadline`: queued, then forwarded in order.
        func stall(until deadline: NIODeadline) {
            loop.execute {
                guard !self.closing else { return }
                self.stalledUntil = max(self.stalledUntil ?? deadline, deadline)
            }
        }

        func truncateNextServerChunk() {
            truncatePending.store(true, ordering: .sequentiallyConsistent)
        }

        func cut(_ how: Cut) {
            loop.execute { self.close(how) }
        }

        /// Closes both sides once (on the event loop).
        func close(_ how: Cut) {
            guard !closing else { return }
            closing = true
            proxy.forget(self)
            for channel in [downstream, upstream] {
                if how == .reset, let provider = channel as? any SocketOptionProvider {
                    provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in
                        channel.close(promise: nil)
                    }
                } else {
                    channel.close(promise: nil)
                }
            }
        }

        func received(_ data: ByteBuffer, _ direction: Direction) {
            guard !closing else { return }
            if let observation, var observer {
                proxy.observe(observation) { record in
                    if direction == .toServer {
                        observer.client(data, into: &record)
                    } else {
                        observer.server(data, into: &record)
                    }
                }
                self.observer = observer
            }
            var data = data
            guard !truncated else { return }
            if direction == .toClient, proxy.answersLost.load(ordering: .sequentiallyConsistent) {
                close(.reset)
                return
            }
            if direction == .toClient, var filter = serverFrames {
                let (passed, ended) = filter.pass(data)
                serverFrames = filter
                data = ByteBuffer(bytes: passed)
                if ended {
                    truncated = true
                    downstream.writeAndFlush(data).whenComplete { _ in self.close(.fin) }
                    return
                }
                guard data.readableBytes > 0 else { return }
            }
            if direction == .toClient, truncatePending.load(ordering: .sequentiallyConsistent) {
                truncated = true
                let part = data.readSlice(length: data.readableBytes / 2) ?? ByteBuffer()
                downstream.writeAndFlush(part).whenComplete { _ in self.close(.fin) }
                return
            }
            let (latency, bytesPerSecond) = proxy.shaping()
            let now = NIODeadline.now()
            var earliest = now + TimeAmount(latency)
            if let stalledUntil, stalledUntil > earliest { earliest = stalledUntil }
            guard let bytesPerSecond, bytesPerSecond > 0 else {
                send(data, direction, at: earliest, now: now)
                return
            }
            // Throttled: slices of 50 ms worth of bytes, each leaving when the previous one has "drained".
            let sliceSize = max(1, bytesPerSecond / 20)
            while data.readableBytes > 0, let slice = data.readSlice(length: min(sliceSize, data.readableBytes)) {
                var deadline = earliest
                if let free = nextFree[direction], free > deadline { deadline = free }
                nextFree[direction] =
                    deadline + .nanoseconds(Int64(slice.readableBytes) * 1_000_000_000 / Int64(bytesPerSecond))
                send(slice, direction, at: deadline, now: now)
            }
        }

        private func send(_ data: ByteBuffer, _ direction: Direction, at deadline: NIODeadline, now: NIODeadline) {
            if deadline <= now && queues[direction]!.isEmpty {
                write(data, direction)
                return
            }
            queues[direction]!.append((deadline, data))
            loop.scheduleTask(deadline: deadline) { self.drain(direction) }
        }

        private func drain(_ direction: Direction) {
            let now = NIODeadline.now()
            while let first = queues[direction]!.first, first.deadline <= now {
                queues[direction]!.removeFirst()
                write(first.data, direction)
            }
        }

        /// One side's end (a FIN, or the connection gone). Observing, a FIN is passed on as a half-close and the
        /// client's end recorded; otherwise both sides close.
        func ended(_ direction: Direction, inputOnly: Bool) {
            if direction == .toServer, let observation { proxy.observe(observation) { $0.clientEnded = true } }
            guard observation != nil, !closing else {
                close(.fin)
                return
            }
            if direction == .toServer && !inputOnly {
                close(.fin)
            } else {
                (direction == .toServer ? upstream : downstream).close(mode: .output, promise: nil)
            }
        }

        private func write(_ data: ByteBuffer, _ direction: Direction) {
            guard !closing, !truncated else { return }
            let target = direction == .toServer ? upstream : downstream
            target.writeAndFlush(data, promise: nil)
        }
    }

    /// Holds what a client sends first until the upstream its first byte picks is dialled (0x16 begins a TLS
    /// handshake), then hands it to the link and steps aside.
    fileprivate final class FirstByteRouter: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer
        private let dial: (UInt8?) -> EventLoopFuture<Link>
        private var held: [ByteBuffer] = []
        private var dialling = false

        init(dial: @escaping (UInt8?) -> EventLoopFuture<Link>) {
            self.dial = dial
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            held.append(buffer)
            guard !dialling else { return }
            dialling = true
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            dial(buffer.getInteger(at: buffer.readerIndex, as: UInt8.self)).whenSuccess { link in
                // On the loop, right after the link's relays were added: nothing was read in between.
                let (router, context) = loopBound.value
                for chunk in router.held { link.received(chunk, .toServer) }
                router.held = []
                context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            }
        }
    }

    /// Hands what one side reads to the link; the link closes both sides when either ends.
    fileprivate final class Relay: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let link: Link
        let direction: Direction

        init(link: Link, direction: Direction) {
            self.link = link
            self.direction = direction
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            link.received(unwrapInboundIn(data), direction)
        }

        func channelInactive(context: ChannelHandlerContext) {
            link.ended(direction, inputOnly: false)
            context.fireChannelInactive()
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            // Only with half-closure allowed (observing): the client ended its side.
            if case ChannelEvent.inputClosed = event { link.ended(direction, inputOnly: true) }
            context.fireUserInboundEventTriggered(event)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            // A reset by one peer is passed on as a reset to the other.
            link.close(.reset)
        }
    }
}

/// The server's side of one connection with frames dropped: the HTTP answer as it is, then frame by frame, the dropped
/// opcodes left out. An answer that is not `101` turns it off.
private struct ServerFrameDropper {
    let drop: Set<UInt8>
    let endAtClose: Bool
    private var wire = WebSocketWireReader()
    private var upgraded: Bool?

    init(drop: Set<UInt8>, endAtClose: Bool) {
        self.drop = drop
        self.endAtClose = endAtClose
    }

    /// What of `buffer` goes on to the client, and whether a dropped close frame ends the connection there.
    mutating func pass(_ buffer: ByteBuffer) -> (bytes: [UInt8], ended: Bool) {
        if upgraded == false { return (Array(buffer.readableBytesView), false) }
        wire.feed(buffer)
        var out: [UInt8] = []
        if upgraded == nil {
            guard let head = wire.nextHead() else { return ([], false) }
            upgraded = String(decoding: head.prefix(20), as: UTF8.self).contains(" 101 ")
            out += head
            if upgraded == false { return (out + wire.takeRest(), false) }
        }
        while let frame = wire.nextFrame() {
            if !drop.contains(frame.opcode) {
                out += frame.bytes
            } else if frame.opcode == 0x8, endAtClose {
                return (out, true)
            }
        }
        return (out, false)
    }
}

extension TimeAmount {
    fileprivate init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
