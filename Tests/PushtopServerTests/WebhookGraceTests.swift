import Testing

@testable import PushtopServer

/// Pusher's grace before departures, as a value: no clock, no server.
@Suite struct WebhookGraceTests {
    let t0 = ContinuousClock.now
    func at(_ seconds: Double) -> ContinuousClock.Instant { t0 + .milliseconds(Int64(seconds * 1000)) }

    @Test func aVacatedChannelIsPostedOnceTheGraceIsOver() {
        var grace = WebhookGrace(seconds: 3)
        #expect(grace.offer(.channelVacated(channel: "news"), now: at(0)).isEmpty)
        #expect(grace.expire(now: at(2.9)).isEmpty)
        #expect(grace.nextDue == at(3))
        #expect(grace.expire(now: at(3)) == [.channelVacated(channel: "news")])
        #expect(grace.nextDue == nil)
    }

    @Test func occupiedAgainWithinTheGraceSendsNeither() {
        var grace = WebhookGrace(seconds: 3)
        _ = grace.offer(.channelVacated(channel: "news"), now: at(0))
        #expect(grace.offer(.channelOccupied(channel: "news"), now: at(1)).isEmpty)
        #expect(grace.expire(now: at(10)).isEmpty)
    }

    @Test func aMemberWhoReturnsWithinTheGraceSendsNeither() {
        var grace = WebhookGrace(seconds: 3)
        _ = grace.offer(.memberRemoved(channel: "presence-room", userID: "ann"), now: at(0))
        #expect(grace.offer(.memberAdded(channel: "presence-room", userID: "ann"), now: at(2)).isEmpty)
        #expect(grace.expire(now: at(10)).isEmpty)
    }

    @Test func anotherMemberOrChannelDoesNotCancel() {
        var grace = WebhookGrace(seconds: 3)
        _ = grace.offer(.memberRemoved(channel: "presence-room", userID: "ann"), now: at(0))
        _ = grace.offer(.channelVacated(channel: "news"), now: at(0.5))
        #expect(
            grace.offer(.memberAdded(channel: "presence-room", userID: "ben"), now: at(1))
                == [.memberAdded(channel: "presence-room", userID: "ben")])
        #expect(grace.offer(.channelOccupied(channel: "sport"), now: at(1)) == [.channelOccupied(channel: "sport")])
        #expect(
            grace.expire(now: at(3.6)) == [
                .memberRemoved(channel: "presence-room", userID: "ann"), .channelVacated(channel: "news"),
            ])
    }

    @Test func aReturnAfterTheGraceIsAnnounced() {
        var grace = WebhookGrace(seconds: 3)
        _ = grace.offer(.channelVacated(channel: "news"), now: at(0))
        #expect(grace.expire(now: at(3)) == [.channelVacated(channel: "news")])
        #expect(grace.offer(.channelOccupied(channel: "news"), now: at(4)) == [.channelOccupied(channel: "news")])
    }

    @Test func leavingAgainRestartsTheGrace() {
        var grace = WebhookGrace(seconds: 3)
        _ = grace.offer(.channelVacated(channel: "news"), now: at(0))
        _ = grace.offer(.channelOccupied(channel: "news"), now: at(1))
        _ = grace.offer(.channelVacated(channel: "news"), now: at(2))
        #expect(grace.expire(now: at(3.5)).isEmpty)
        #expect(grace.expire(now: at(5)) == [.channelVacated(channel: "news")])
    }

    @Test func otherEventsAndAZeroGracePassStraightThrough() {
        var grace = WebhookGrace(seconds: 3)
        let client = WebhookEvent.clientEvent(
            channel: "private-a", event: "client-x", data: "{}", socketID: "1.1", userID: nil)
        #expect(grace.offer(client, now: at(0)) == [client])
        #expect(grace.offer(.cacheMiss(channel: "cache-a"), now: at(0)) == [.cacheMiss(channel: "cache-a")])
        var none = WebhookGrace(seconds: 0)
        #expect(none.offer(.channelVacated(channel: "news"), now: at(0)) == [.channelVacated(channel: "news")])
    }

    @Test func aShutdownFlushesWhatIsHeldInOrder() {
        var grace = WebhookGrace(seconds: 3)
        _ = grace.offer(.memberRemoved(channel: "presence-room", userID: "ann"), now: at(0))
        _ = grace.offer(.channelVacated(channel: "presence-room"), now: at(0))
        #expect(
            grace.flush() == [
                .memberRemoved(channel: "presence-room", userID: "ann"), .channelVacated(channel: "presence-room"),
            ])
        #expect(grace.expire(now: at(10)).isEmpty)
    }
}
