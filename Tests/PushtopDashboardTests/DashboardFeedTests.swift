import PusherProtocol
import Testing

@testable import PushtopDashboard

/// The feed a client posts to: each read burst keeps its arrival time, and beyond the capacity new events and
/// frames are dropped and counted (the dashboard shows the counts), so a stalled screen cannot grow memory.
@Suite struct DashboardFeedTests {
    static func events(_ n: Int, channel: String = "c") -> [ClientEvent] {
        (0..<n).map { .event(ChannelEvent(channel: channel, name: "e\($0)", dataText: nil, receivedAt: 0)) }
    }

    static func frames(_ n: Int) -> [WireFrame] {
        (0..<n).map { WireFrame(time: Double($0), direction: .inbound, kind: .text, size: 2, text: "{}") }
    }

    @Test func burstsKeepTheirArrivalTimesInOrder() {
        let feed = DashboardFeed(capacity: 100)
        feed.post(Self.events(2), time: 10)
        feed.post(Self.events(3), time: 11)
        let taken = feed.take()
        #expect(taken.bursts.map(\.time) == [10, 11])
        #expect(taken.bursts.map(\.events.count) == [2, 3])
        #expect(taken.dropped == 0)
        #expect(feed.take().bursts.isEmpty)
    }

    @Test func eventsBeyondTheCapacityAreDroppedAndCounted() {
        let feed = DashboardFeed(capacity: 5)
        feed.post(Self.events(3), time: 1)
        feed.post(Self.events(4), time: 2)  // 2 fit
        feed.post(Self.events(6), time: 3)  // none fit
        let taken = feed.take()
        #expect(taken.bursts.map(\.events.count) == [3, 2])
        #expect(taken.dropped == 8)
        // Taken: room again, and the count starts over (the dashboard adds it to its total).
        feed.post(Self.events(5), time: 4)
        let next = feed.take()
        #expect(next.bursts.map(\.events.count) == [5])
        #expect(next.dropped == 0)
    }

    @Test func framesBeyondTheCapacityAreDroppedAndTheTotalIsKept() {
        let feed = DashboardFeed(capacity: 4)
        feed.post(frames: Self.frames(3))
        feed.post(frames: Self.frames(3))
        let first = feed.take()
        #expect(first.frames.count == 4 && first.framesPosted)
        #expect(first.framesDroppedSoFar == 2)
        #expect(!feed.take().framesPosted)
        feed.post(frames: Self.frames(5))
        let second = feed.take()
        #expect(second.frames.count == 4)
        #expect(second.framesDroppedSoFar == 3)  // the wire inspector shows the total since the start
    }
}
