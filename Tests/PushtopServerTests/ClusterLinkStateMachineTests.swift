import Testing

@testable import PushtopServer

/// The rules of a node's link to its cluster, read like the spec: "given …, when …, then …". No Redis, no clock.
@Suite struct ClusterLinkStateMachineTests {
    typealias Machine = ClusterLinkStateMachine
    typealias Action = ClusterLinkStateMachine.Action

    /// Node `me`, node timeout 4 s: a heartbeat every second, rosters read again 5 s after a registration.
    let configuration = Machine.Configuration(
        ClusterConfiguration(
            redisURL: "redis://127.0.0.1", nodeID: "me",
            nodeTimeout: 4))

    /// A machine that started, both connections down.
    func started() -> Machine {
        var machine = Machine(configuration: configuration)
        _ = machine.handle(.started)
        return machine
    }

    /// A machine whose link is up and announced, registration 1 asked for (with `channels`) and not answered.
    func registering(_ channels: Set<String> = ["presence-room"]) -> Machine {
        var machine = started()
        _ = machine.handle(.commandsConnection(up: true))
        _ = machine.handle(.busSubscription(up: true))
        _ = machine.handle(.registrationRequested(presenceChannels: channels))
        return machine
    }

    /// A machine whose link is up and registration 1 succeeded.
    func registered(_ channels: Set<String> = ["presence-room"]) -> Machine {
        var machine = registering(channels)
        _ = machine.handle(.registrationSucceeded(attempt: 1))
        return machine
    }

    // MARK: Start

    @Test func theTimingFollowsTheNodeTimeout() {
        #expect(configuration.heartbeatInterval == .seconds(1))
        #expect(configuration.rosterGrace == .seconds(5))
        #expect(configuration.registrationRetryDelay == .milliseconds(250))
        #expect(configuration.startTimeout == .seconds(3))
    }

    @Test func startingHeartbeatsAtOnceAndWaitsAWhileForTheLink() {
        var machine = Machine(configuration: configuration)
        #expect(machine.health == .down)
        #expect(
            machine.handle(.started) == [
                .sendHeartbeat, .startTimer(.heartbeat, after: .seconds(1)),
                .startTimer(.startDeadline, after: .seconds(3)),
            ])
        #expect(machine.handle(.started).isEmpty, "a second start does nothing")
    }

    @Test func connectionsUpBeforeTheStartAreAnnouncedAtTheStart() {
        var machine = Machine(configuration: configuration)
        #expect(machine.handle(.commandsConnection(up: true)).isEmpty)
        #expect(machine.handle(.busSubscription(up: true)).isEmpty, "nobody to tell before the start")
        #expect(machine.handle(.started).last == .announceUp)
    }

    @Test func givenStartedWhenTheLinkDoesNotComeUpInTimeThenTheNodeServesAlone() {
        var machine = started()
        #expect(machine.handle(.timerFired(.startDeadline)) == [.finishStart(joined: false)])
        _ = machine.handle(.commandsConnection(up: true))
        _ = machine.handle(.busSubscription(up: true))
        _ = machine.handle(.registrationRequested(presenceChannels: []))
        #expect(
            !machine.handle(.registrationSucceeded(attempt: 1)).contains(.finishStart(joined: true)),
            "the start finishes once")
        #expect(machine.health == .up)
    }

    @Test func givenJoinedWhenTheStartDeadlinePassesThenNothingHappens() {
        var machine = registered()
        #expect(machine.handle(.timerFired(.startDeadline)).isEmpty)
    }

    // MARK: Up and down

    @Test func theLinkIsUpOnlyWhenBothConnectionsAre() {
        var machine = started()
        #expect(machine.handle(.commandsConnection(up: true)).isEmpty)
        #expect(machine.health == .down)
        #expect(machine.handle(.busSubscription(up: true)) == [.announceUp])
        #expect(machine.health == .reconnecting, "up, but not registered yet")
    }

    @Test func theSubscriberFirstThenCommandsAnnouncesUpToo() {
        var machine = started()
        #expect(machine.handle(.busSubscription(up: true)).isEmpty)
        #expect(machine.handle(.commandsConnection(up: true)) == [.announceUp])
    }

    @Test func aRepeatedUpIsAnnouncedOnce() {
        var machine = registering()
        #expect(machine.handle(.commandsConnection(up: true)).isEmpty)
        #expect(machine.handle(.busSubscription(up: true)).isEmpty)
    }

    @Test(arguments: [true, false])
    func givenRegisteredWhenEitherConnectionDropsThenDownIsAnnouncedAndTheNodeIsReconnecting(commands: Bool) {
        var machine = registered()
        let input: Machine.Input = commands ? .commandsConnection(up: false) : .busSubscription(up: false)
        #expect(machine.handle(input) == [.announceDown])
        #expect(machine.health == .reconnecting, "it was up: it is reconnecting")
        #expect(machine.handle(.commandsConnection(up: false)).isEmpty, "down is announced once")
    }

    @Test func givenDownWhenBothAreBackThenUpIsAnnouncedAndTheNodeRegistersAgain() {
        var machine = registered()
        _ = machine.handle(.busSubscription(up: false))
        #expect(machine.handle(.busSubscription(up: true)) == [.announceUp])
        #expect(machine.health == .reconnecting, "the last registration belongs to the old link")
        #expect(
            machine.handle(.registrationRequested(presenceChannels: [])) == [.sendHeartbeat, .register(attempt: 2)])
        _ = machine.handle(.registrationSucceeded(attempt: 2))
        #expect(machine.health == .up)
    }

    // MARK: Registration

    @Test func registrationSendsTheHeartbeatFirst() {
        var machine = started()
        _ = machine.handle(.commandsConnection(up: true))
        _ = machine.handle(.busSubscription(up: true))
        #expect(
            machine.handle(.registrationRequested(presenceChannels: [])) == [.sendHeartbeat, .register(attempt: 1)])
        #expect(machine.attempt == 1)
    }

    @Test func givenRegisteringWhenRedisRegistersThenTheNodeJoinedAndReadsWhoJoinedElsewhere() {
        var machine = registering(["presence-a"])
        #expect(
            machine.handle(.registrationSucceeded(attempt: 1)) == [
                .finishStart(joined: true), .readRosters(["presence-a"], removing: false),
                .startTimer(.rosterRecheck(attempt: 1), after: .seconds(5)),
            ])
        #expect(machine.health == .up)
    }

    @Test func withoutPresenceChannelsNoRosterIsRead() {
        var machine = registering([])
        #expect(machine.handle(.registrationSucceeded(attempt: 1)) == [.finishStart(joined: true)])
    }

    @Test func afterTheGraceTheRostersAreReadAgainToTellWhoLeft() {
        var machine = registered(["presence-a"])
        #expect(
            machine.handle(.timerFired(.rosterRecheck(attempt: 1))) == [
                .readRosters(["presence-a"], removing: true)
            ])
    }

    @Test func aRosterRecheckOfAnOlderRegistrationOrADownLinkDoesNothing() {
        var newer = registered()
        _ = newer.handle(.registrationRequested(presenceChannels: ["presence-room"]))
        #expect(newer.handle(.timerFired(.rosterRecheck(attempt: 1))).isEmpty)
        var down = registered()
        _ = down.handle(.commandsConnection(up: false))
        #expect(down.handle(.timerFired(.rosterRecheck(attempt: 1))).isEmpty)
    }

    @Test func givenRegisteringWhenRegistrationFailsThenItIsTriedAgainAfter250Milliseconds() {
        var machine = registering()
        #expect(
            machine.handle(.registrationFailed(attempt: 1)) == [
                .startTimer(.registrationRetry(attempt: 1), after: .milliseconds(250))
            ])
        #expect(machine.health == .reconnecting)
        #expect(machine.handle(.timerFired(.registrationRetry(attempt: 1))) == [.reregister(.registrationFailed)])
    }

    @Test func aFailedRegistrationOfADownLinkWaitsForTheLinkInstead() {
        var machine = registering()
        _ = machine.handle(.commandsConnection(up: false))
        #expect(machine.handle(.registrationFailed(attempt: 1)).isEmpty)
    }

    @Test func aRetryDueAfterTheLinkWentDownDoesNothing() {
        var machine = registering()
        _ = machine.handle(.registrationFailed(attempt: 1))
        _ = machine.handle(.busSubscription(up: false))
        #expect(machine.handle(.timerFired(.registrationRetry(attempt: 1))).isEmpty)
    }

    @Test func aRetryOfAnOlderRegistrationDoesNothing() {
        var machine = registering()
        _ = machine.handle(.registrationFailed(attempt: 1))
        _ = machine.handle(.registrationRequested(presenceChannels: []))
        #expect(machine.handle(.timerFired(.registrationRetry(attempt: 1))).isEmpty)
        #expect(machine.handle(.registrationFailed(attempt: 1)).isEmpty, "an old failure arms nothing")
    }

    @Test func anAnswerToAnOlderRegistrationIsIgnored() {
        var machine = registering()
        _ = machine.handle(.registrationRequested(presenceChannels: ["presence-room"]))
        #expect(machine.handle(.registrationSucceeded(attempt: 1)).isEmpty)
        #expect(machine.health == .reconnecting)
        #expect(!machine.handle(.registrationSucceeded(attempt: 2)).isEmpty)
        #expect(machine.health == .up)
    }

    @Test func aRegistrationThatLandsAfterTheLinkWentDownDoesNotCount() {
        var machine = registering()
        _ = machine.handle(.commandsConnection(up: false))
        #expect(machine.handle(.registrationSucceeded(attempt: 1)).isEmpty)
        _ = machine.handle(.commandsConnection(up: true))
        #expect(machine.health == .reconnecting)
    }

    // MARK: Heartbeat

    @Test func givenStartedWhenTheHeartbeatIsDueThenItIsSentAndTheNextOneScheduled() {
        var machine = started()
        #expect(
            machine.handle(.timerFired(.heartbeat)) == [
                .sendHeartbeat, .startTimer(.heartbeat, after: .seconds(1)),
            ])
    }

    @Test func givenAPeerWhoseHeartbeatExpiredThenItsMembersAreRemoved() {
        var machine = registered()
        let actions = machine.handle(.heartbeatAnswered(wasAlive: true, expiredNodes: ["dead-1", "me", "dead-2"]))
        #expect(
            actions == [.removeMembers(ofNode: "dead-1"), .removeMembers(ofNode: "dead-2")],
            "never this node's own")
    }

    @Test func givenRegisteredWhenThisNodesHeartbeatHadExpiredThenItRegistersAgain() {
        var machine = registered()
        #expect(
            machine.handle(.heartbeatAnswered(wasAlive: false, expiredNodes: [])) == [
                .reregister(.heartbeatExpired)
            ])
        #expect(machine.health == .up, "its members are still its own while it registers again")
    }

    @Test func anExpiredKeyBeforeTheFirstRegistrationIsNoNews() {
        var machine = registering()
        #expect(machine.handle(.heartbeatAnswered(wasAlive: false, expiredNodes: [])).isEmpty)
    }

    @Test func aFailedReregistrationAfterAnExpiredHeartbeatIsTriedAgain() {
        var machine = registered()
        _ = machine.handle(.heartbeatAnswered(wasAlive: false, expiredNodes: []))
        _ = machine.handle(.registrationRequested(presenceChannels: ["presence-room"]))
        #expect(
            machine.handle(.registrationFailed(attempt: 2)) == [
                .startTimer(.registrationRetry(attempt: 2), after: .milliseconds(250))
            ])
        #expect(machine.handle(.timerFired(.registrationRetry(attempt: 2))) == [.reregister(.registrationFailed)])
    }

    // MARK: Stop

    @Test func givenRedisUpWhenTheNodeStopsThenItUnregistersAndDisconnects() {
        var machine = registered()
        #expect(machine.handle(.stopRequested) == [.unregister, .disconnect])
    }

    @Test func givenRedisDownWhenTheNodeStopsThenItOnlyDisconnects() {
        var machine = started()
        #expect(machine.handle(.stopRequested) == [.disconnect])
    }

    @Test func afterTheStopNothingHappens() {
        var machine = registered()
        _ = machine.handle(.stopRequested)
        #expect(machine.handle(.commandsConnection(up: false)).isEmpty)
        #expect(machine.handle(.timerFired(.heartbeat)).isEmpty)
        #expect(machine.handle(.registrationRequested(presenceChannels: [])).isEmpty)
        #expect(machine.handle(.stopRequested).isEmpty)
    }
}
