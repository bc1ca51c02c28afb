import PushtopTestSupport
import Testing

@testable import PusherChannels

/// Every consumer gets its own bounded feed; what a full feed drops is counted.
@Suite struct EventFeedTests {
    let sample = (0..<10).map { ClientEvent.subscriptionCount(channel: "c", count: $0) }

    @Test func batchesHoldEverythingBufferedSinceTheLastPull() async {
        let broadcaster = EventBroadcaster()
        let feed = broadcaster.makeBatches(capacity: 100)
        broadcaster.publish(Array(sample[0..<3]))
        broadcaster.publish(Array(sample[3..<10]))
        var iterator = feed.makeAsyncIterator()
        #expect(await iterator.next() == sample)
        #expect(feed.droppedCount == 0)
    }

    @Test func aFullBatchFeedDropsTheOldestAndCountsThem() async {
        let broadcaster = EventBroadcaster()
        let feed = broadcaster.makeBatches(capacity: 4)
        broadcaster.publish(sample)
        var iterator = feed.makeAsyncIterator()
        #expect(await iterator.next() == Array(sample[6..<10]))
        #expect(feed.droppedCount == 6)
    }

    @Test func everyConsumerGetsEveryEvent() async {
        let broadcaster = EventBroadcaster()
        let a = broadcaster.makeBatches(capacity: 100)
        let b = broadcaster.makeStream(capacity: 100)
        broadcaster.publish(sample)
        broadcaster.finish()
        var all: [ClientEvent] = []
        for await batch in a { all += batch }
        var one: [ClientEvent] = []
        for await event in b { one.append(event) }
        #expect(all == sample && one == sample)
    }

    @Test func aFullStreamCountsItsDrops() async {
        let broadcaster = EventBroadcaster()
        let stream = broadcaster.makeStream(capacity: 3)
        broadcaster.publish(sample)
        #expect(broadcaster.streamDroppedCount == 7)
        broadcaster.finish()
        var got: [ClientEvent] = []
        for await event in stream { got.append(event) }
        #expect(got == Array(sample[7..<10]))
    }

    @Test func aWaitingConsumerWakesOnPublish() async throws {
        let broadcaster = EventBroadcaster()
        let feed = broadcaster.makeBatches(capacity: 10)
        let task = Task { () -> [ClientEvent]? in
            var iterator = feed.makeAsyncIterator()
            return await iterator.next()
        }
        try await waitUntil("the consumer to wait") { feed.isWaiting }
        broadcaster.publish([sample[0]])
        #expect(await task.value == [sample[0]])
    }

    @Test func cancellingAConsumerEndsItsSequence() async {
        let broadcaster = EventBroadcaster()
        let feed = broadcaster.makeBatches(capacity: 10)
        let task = Task { () -> Int in
            var n = 0
            for await _ in feed { n += 1 }
            return n
        }
        task.cancel()
        #expect(await task.value == 0)
    }
}
