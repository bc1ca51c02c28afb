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
}
