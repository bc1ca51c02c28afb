import PusherProtocol
import PushtopDashboard
import PushtopDashboardFakes

/// `dashboard-preview --bench`: frame time at 140x42 with a full log and 100 members (into the grid canvas),
/// and reduce throughput. Build with `-c release` for meaningful numbers.
enum Bench {
    /// Seconds `body` takes, on the monotonic clock.
    static func seconds(_ body: () -> Void) -> Double {
        let elapsed = ContinuousClock().measure(body)
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// Frames drawn for each frame time.
    static let frames = 500

    static func run() {
        var state = DashboardState(
            size: Size(rows: 42, columns: 140), now: 1_700_000_000,
            configuration: .init(logCapacity: 10_000))
        _ = state.reduce(.client(ScriptedFeed.demoOpening))
        let members = (0..<100).map {
            ClientEvent.memberAdded(
                channel: "presence-lobby",
                member: PresenceMember(userID: "user-\($0)", userInfo: ["name": .string("User \($0) 東京")]))
        }
        _ = state.reduce(.client(members))
        let events = (0..<50_000).map { i in
            ClientEvent.event(
                ChannelEvent(
                    channel: i % 2 == 0 ? "market-data" : "private-orders",
                    name: "price-update", dataText: #"{"symbol":"BTC","price":\#(i),"note":"🚀 東京"}"#,
                    receivedAt: 1_700_000_000 + Double(i) / 5000))
        }
        let reduceSeconds = seconds {
            for chunk in stride(from: 0, to: events.count, by: 500) {
                _ = state.reduce(.client(Array(events[chunk..<min(events.count, chunk + 500)])))
            }
        }
        var canvas = GridCanvas(size: state.size)
        let frameSeconds = secondsPerFrame(state, into: &canvas)
        print(
            "log: \(state.log.count) kept, \(state.log.dropped) dropped; members: \(state.rosters["presence-lobby"]?.count ?? 0)"
        )
        print("reduce: \(Int(Double(events.count) / reduceSeconds)) events/s")
        print("frame 140x42 into grid canvas: \(Int(frameSeconds * 1_000_000)) µs")
        benchWireInspector(&state, events: events, canvas: &canvas)
        benchTwoApps(members: members, events: events, canvas: &canvas)
    }

    /// Seconds a frame of `state` takes to draw into `canvas`, averaged over ``frames`` frames.
    static func secondsPerFrame(_ state: DashboardState, into canvas: inout GridCanvas) -> Double {
        seconds {
            for _ in 0..<frames { DashboardView.draw(state, into: &canvas) }
        } / Double(frames)
    }

    /// The wire inspector full of frames (10,000 kept of 50,000), following and with a filter.
    static func benchWireInspector(_ state: inout DashboardState, events: [ClientEvent], canvas: inout GridCanvas) {
        let frameBatch = events.prefix(50_000).map { e -> WireFrame in
            guard case .event(let ev) = ScriptedFeed.withFrame(e), let raw = ev.rawFrame else { fatalError() }
            return WireFrame(time: ev.receivedAt, direction: .inbound, kind: .text, size: raw.utf8.count, text: raw)
        }
        let frameReduce = seconds {
            for chunk in stride(from: 0, to: frameBatch.count, by: 500) {
                _ = state.reduce(
                    .frames(Array(frameBatch[chunk..<min(frameBatch.count, chunk + 500)]), droppedUpstream: 0))
            }
        }
        _ = state.reduce(.key(.char("w")))
        let wireFrame = secondsPerFrame(state, into: &canvas)
        print(
            "wire inspector: \(state.wire.log.count) kept, \(state.wire.log.dropped) dropped; reduce \(Int(Double(frameBatch.count) / frameReduce)) frames/s"
        )
        print("frame 140x42 wire inspector: \(Int(wireFrame * 1_000_000)) µs")
    }

    /// Two apps (two profiles): the same events split between them; channels grouped, the log marked by app.
    static func benchTwoApps(members: [ClientEvent], events: [ClientEvent], canvas: inout GridCanvas) {
        var two = DashboardState(
            size: Size(rows: 42, columns: 140), now: 1_700_000_000,
            configuration: .init(logCapacity: 10_000))
        two.setApps([AppSetup(label: "staging"), AppSetup(label: "production")])
        _ = two.reduce(.client(ScriptedFeed.demoOpening, app: 0))
        _ = two.reduce(.client(ScriptedFeed.demoOpening + members, app: 1))
        let twoReduce = seconds {
            for chunk in stride(from: 0, to: events.count, by: 500) {
                _ = two.reduce(.client(Array(events[chunk..<min(events.count, chunk + 500)]), app: (chunk / 500) % 2))
            }
        }
        let twoFrame = secondsPerFrame(two, into: &canvas)
        print(
            "two apps: reduce \(Int(Double(events.count) / twoReduce)) events/s; frame 140x42: \(Int(twoFrame * 1_000_000)) µs"
        )
    }
}
