import NIOCore
import NIOEmbedded
import Testing

@testable import PushtopServer

/// The queue from the sockets to the hub is bounded: messages past its capacity are dropped and counted, and a
/// connection's opening and closing always get through.
@Suite struct HubInboxTests {
    static func burst(_ n: Int, from id: Int = 1) -> SocketEvent {
        .received(ConnectionID(rawValue: id), Array(repeating: .text(#"{"event":"pusher:ping","data":{}}"#), count: n))
    }

    @Test func messagesPastTheCapacityAreDroppedAndCounted() async {
        let inbox = HubInbox(capacity: 10)
        inbox.yield(Self.burst(6))
        inbox.yield(Self.burst(5))  // 11 would be over: the whole burst is dropped
        inbox.yield(Self.burst(4))
        inbox.yield(.closed(ConnectionID(rawValue: 1), code: nil))
        #expect(inbox.droppedMessages == 5)
        #expect(inbox.queuedMessages == 10)
        inbox.finish()

        var taken: [Int] = []
        var closed = false
        for await event in inbox.events {
            switch event {
            case .received(_, let messages): taken.append(messages.count)
            case .closed: closed = true
            default: break
            }
        }
        #expect(taken == [6, 4])
        #expect(closed, "a close is never dropped")
        #expect(inbox.queuedMessages == 0)
    }

    @Test func takingABurstOutMakesRoomForAnother() async {
        let inbox = HubInbox(capacity: 4)
        var events = inbox.events.makeAsyncIterator()
        inbox.yield(Self.burst(4))
        inbox.yield(Self.burst(1))
        #expect(inbox.droppedMessages == 1)
        _ = await events.next()
        inbox.yield(Self.burst(4))
        #expect(inbox.droppedMessages == 1)
        #expect(inbox.queuedMessages == 4)
        inbox.finish()
    }

    /// The HTTP API's publishes wake the hub at the end of the turn that read them after a quiet spell, and at most
    /// once a millisecond while they keep coming (one client publishing request after request no longer wakes the hub
    /// once a request); their order is kept.
    @Test func publishesWakeTheHubAtMostOnceAnIntervalInOrder() async throws {
        let inbox = HubInbox()
        let loop = EmbeddedEventLoop()
        func event(_ n: Int) -> PublishRequest { PublishRequest(channels: ["c"], name: "e\(n)", data: "") }
        inbox.publish([event(1)], on: loop)
        loop.run()  // the end of the turn: the first publish goes at once
        // Request after request, each in a turn of its own, within the millisecond: they wait, together.
        for n in 2...4 {
            inbox.publish([event(n)], on: loop)
            loop.run()
        }
        loop.advanceTime(by: HubInbox.publishInterval)
        inbox.publish([event(5)], on: loop)
        loop.advanceTime(by: HubInbox.publishInterval)
        inbox.finish()
        var handed: [[String]] = []
        for await item in inbox.events {
            if case .published(let batch) = item { handed.append(batch.map(\.name)) }
        }
        #expect(handed == [["e1"], ["e2", "e3", "e4"], ["e5"]])
    }

    /// A publish is answered 200 as soon as it is queued; a subscription that a client sends after that answer reaches
    /// the hub after the publish, even while the publish waits for its interval (else a new subscriber of a cache
    /// channel got the event before the last one replayed, then the last one live).
    @Test func aSocketEventNeverOvertakesAnAnsweredPublish() async throws {
        let inbox = HubInbox()
        let loop = EmbeddedEventLoop()
        inbox.publish([PublishRequest(channels: ["cache-c"], name: "first", data: "1")], on: loop)
        loop.run()
        inbox.publish([PublishRequest(channels: ["cache-c"], name: "last", data: "2")], on: loop)
        // "last" waits for the interval; the subscription arrives now.
        inbox.yield(
            .received(
                ConnectionID(rawValue: 7), [.text(#"{"event":"pusher:subscribe","data":{"channel":"cache-c"}}"#)]))
        loop.advanceTime(by: HubInbox.publishInterval)
        inbox.finish()
        var order: [String] = []
        for await item in inbox.events {
            switch item {
            case .published(let batch): order += batch.map(\.name)
            case .received: order.append("subscribe")
            default: break
            }
        }
        #expect(order == ["first", "last", "subscribe"])
    }

    /// The HTTP API's queries and terminations wait for `drained()`: it returns only once the hub has taken every
    /// publish answered before it, the ones still waiting out their interval included (a terminate_connections right
    /// after a burst of publishes closed the user's sockets before the last events reached them).
    @Test func drainedReturnsOnlyOnceThePublishesBeforeItAreHandled() async throws {
        let inbox = HubInbox()
        let loop = EmbeddedEventLoop()
        inbox.publish([PublishRequest(channels: ["c"], name: "first", data: "1")], on: loop)
        loop.run()
        inbox.publish([PublishRequest(channels: ["c"], name: "last", data: "2")], on: loop)
        let waiter = Task { await inbox.drained() }
        var order: [String] = []
        for await item in inbox.events {
            switch item {
            case .published(let batch): order += batch.map(\.name)
            case .barrier(let barrier):
                order.append("barrier")
                barrier.pass()
            default: break
            }
            if order.last == "barrier" { break }
        }
        await waiter.value
        #expect(order == ["first", "last", "barrier"])
    }

    /// A stopped server's queue takes no more events: a request waiting on it is let go, not left hanging.
    @Test func drainedReturnsWhenTheQueueHasEnded() async {
        let inbox = HubInbox()
        inbox.finish()
        await inbox.drained()
    }
}
