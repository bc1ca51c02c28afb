import PusherProtocol
import Testing

@testable import PushtopProxy

/// The relay's life as a value (issue 38, point 4): every transition of ``RelayStateMachine``, the late and early
/// events each phase ignores, and what the `disconnection` row is told. How a real relay ends on `EmbeddedChannel`s
/// is in `RelayEndingTests`.
@Suite struct RelayStateMachineTests {
    typealias Machine = RelayStateMachine
    typealias Ends = RelayStateMachine.Ends
    typealias End = RelayStateMachine.End

    /// Both ends attached, as after a successful upgrade.
    static func open() -> Machine {
        var m = Machine()
        _ = m.handle(.attached(.upstream))
        _ = m.handle(.attached(.client))
        return m
    }

    /// Only the upstream's end attached: the client's upgrade is being answered.
    static func awaitingClient() -> Machine {
        var m = Machine()
        _ = m.handle(.attached(.upstream))
        return m
    }

    /// Whatever phase `m` is in, none of these events changes it or asks for anything.
    static func ignores(_ m: Machine, _ events: [Machine.Event]) -> Bool {
        events.allSatisfy { event in
            var copy = m
            return copy.handle(event).isEmpty && copy.state == m.state && copy.disconnection == m.disconnection
        }
    }

    static let everyEvent: [Machine.Event] = [
        .attached(.client), .attached(.upstream), .closeReceived(.client, code: 1000, reason: ""),
        .closeReceived(.upstream, code: 1000, reason: ""), .closeWritten(.client), .closeWritten(.upstream),
        .ended(.client), .ended(.upstream), .protocolFailure(.client, code: 1002, reason: "x"),
        .protocolFailure(.upstream, code: 1002, reason: "x"), .faultClose(code: 4200, reason: "r"),
        .faultClose(code: 1006, reason: "r"), .dropClient, .stall,
    ]

    // MARK: - Opening

    @Test func aRelayDialsThenWaitsForTheClientThenRelays() {
        var m = Machine()
        #expect(m.state == .dialing)
        #expect(m.handle(.attached(.upstream)).isEmpty)
        #expect(m.state == .awaitingClient(.init()))
        #expect(m.relays, "the upstream's first messages are held for the client")
        #expect(m.handle(.attached(.client)) == [.releaseEarlyMessages, .flush(.client), .fireWaitingFaults])
        #expect(m.state == .relaying)
        #expect(m.relays && !m.clientEnded && m.disconnection == nil)
    }

    @Test func whileDialingOnlyTheUpstreamsEndCanCome() {
        let m = Machine()
        #expect(Self.ignores(m, Self.everyEvent.filter { $0 != .attached(.upstream) && $0 != .attached(.client) }))
        // The client's upgrade is answered after the upstream's: a client's end that came first is dropped.
        var c = m
        #expect(c.handle(.attached(.client)) == [.drop(.client)])
        #expect(c.state == .dialing)
    }

    @Test func whileAwaitingTheClientItsOwnEventsAreIgnored() {
        #expect(
            Self.ignores(
                Self.awaitingClient(),
                [
                    .attached(.upstream), .closeReceived(.client, code: 1000, reason: ""), .closeWritten(.client),
                    .ended(.client), .protocolFailure(.client, code: 1002, reason: "x"),
                ]))
    }

    @Test func theUpstreamsRefusalBeforeTheClientsEndIsAttachedStillReachesTheClient() {
        var m = Self.awaitingClient()
        #expect(
            m.handle(.closeReceived(.upstream, code: 4001, reason: "App key not in this cluster")) == [
                .sendClose(.upstream, code: 4001, reason: "")
            ])
        #expect(m.handle(.closeWritten(.upstream)) == [.drop(.upstream)])
        #expect(m.handle(.ended(.upstream)).isEmpty)
        #expect(
            m.handle(.attached(.client)) == [
                .releaseEarlyMessages, .flush(.client),
                .sendClose(.client, code: 4001, reason: "App key not in this cluster"),
            ])
        #expect(m.disconnection == .init(by: .server, code: 4001, reason: "App key not in this cluster"))
        #expect(!m.relays)
        // The client answers: its socket goes; with the upstream's gone already, the relay is closed.
        #expect(m.handle(.closeReceived(.client, code: 4001, reason: "")) == [.drop(.client)])
        #expect(m.handle(.ended(.client)) == [.reportDisconnection])
        #expect(m.state == .closed)
        #expect(m.disconnection?.code == 4001, "the first reason stands")
    }

    @Test func anUpstreamGoneBeforeTheClientsEndIsAttachedDropsTheClientAfterWhatCameBefore() {
        var m = Self.awaitingClient()
        #expect(m.handle(.ended(.upstream)).isEmpty)
        #expect(m.handle(.ended(.upstream)).isEmpty, "ended once")
        #expect(m.handle(.attached(.client)) == [.releaseEarlyMessages, .flush(.client), .drop(.client)])
        #expect(m.disconnection?.code == 1006)
        #expect(m.disconnection?.by == .server)
        #expect(m.handle(.ended(.client)) == [.reportDisconnection])
        #expect(m.state == .closed)
    }

    @Test func anUpstreamThatBreaksTheProtocolBeforeTheClientsEndIsAttachedLeavesTheClient1011() {
        var m = Self.awaitingClient()
        #expect(
            m.handle(.protocolFailure(.upstream, code: 1002, reason: "masked")) == [
                .sendClose(.upstream, code: 1002, reason: "masked")
            ])
        #expect(!m.relays, "nothing more is held for the client")
        #expect(
            m.handle(.attached(.client)) == [
                .releaseEarlyMessages, .flush(.client),
                .sendClose(.client, code: 1011, reason: "The upstream broke the WebSocket protocol"),
            ])
        #expect(m.disconnection == .init(by: .server, code: 1011, reason: "upstream: masked"))
    }

    @Test func aFaultBeforeTheClientsEndIsAttachedMeetsTheClientWhenItIs() {
        var m = Self.awaitingClient()
        _ = m.handle(.closeReceived(.upstream, code: 1000, reason: ""))
        // The fault speaks for the server, whatever the upstream did.
        #expect(m.handle(.faultClose(code: 4200, reason: "Generic reconnect immediately")).isEmpty)
        #expect(m.disconnection == .init(by: .server, code: 4200, reason: "Generic reconnect immediately"))
        #expect(
            m.handle(.attached(.client)) == [
                .releaseEarlyMessages, .flush(.client),
                .sendClose(.client, code: 4200, reason: "Generic reconnect immediately"),
            ])
        var d = Self.awaitingClient()
        #expect(d.handle(.dropClient) == [.sendClose(.upstream, code: 1001, reason: "")])
        #expect(d.handle(.attached(.client)) == [.releaseEarlyMessages, .flush(.client), .drop(.client)])
        #expect(d.disconnection == .init(by: .server, code: 1006, reason: Machine.dropReason))
    }

    @Test func aStallBeforeTheClientsEndIsAttachedStallsTheRelayItJoins() {
        var m = Self.awaitingClient()
        #expect(m.handle(.stall).isEmpty)
        #expect(!m.relays)
        #expect(m.handle(.attached(.client)) == [.releaseEarlyMessages, .flush(.client), .fireWaitingFaults])
        #expect(m.state == .stalled)
    }

    // MARK: - Relaying and stalled

    @Test func aStallStopsTheRelayAndKeepsBothSockets() {
        var m = Self.open()
        #expect(m.handle(.stall).isEmpty)
        #expect(m.state == .stalled && !m.relays && !m.clientEnded)
        #expect(Self.ignores(m, [.stall, .attached(.client), .attached(.upstream), .closeWritten(.client)]))
    }

    @Test func aClientsCloseIsPassedOnAnsweredAndBothSocketsEnd() {
        var m = Self.open()
        #expect(
            m.handle(.closeReceived(.client, code: 1000, reason: "bye")) == [
                .sendClose(.upstream, code: 1000, reason: "bye"), .sendClose(.client, code: 1000, reason: ""),
            ])
        #expect(
            m.state == .closing(Ends(client: End(closeSent: true, closeReceived: true), upstream: End(closeSent: true)))
        )
        #expect(m.disconnection == .init(by: .client, code: 1000, reason: "bye"))
        #expect(!m.relays)
        // The upstream answers: its socket ends at once (both close frames went), the reason stays the client's.
        #expect(m.handle(.closeReceived(.upstream, code: 1000, reason: "")) == [.drop(.upstream)])
        #expect(m.disconnection?.by == .client)
        #expect(m.handle(.closeWritten(.client)) == [.drop(.client)])
        #expect(m.handle(.ended(.upstream)).isEmpty)
        #expect(m.handle(.ended(.client)) == [.reportDisconnection])
        #expect(m.state == .closed && m.clientEnded)
    }

    @Test func anUpstreamsCloseIsPassedOnAnsweredAndBothSocketsEnd() {
        var m = Self.open()
        #expect(
            m.handle(.closeReceived(.upstream, code: 4200, reason: "reconnect")) == [
                .sendClose(.client, code: 4200, reason: "reconnect"), .sendClose(.upstream, code: 4200, reason: ""),
            ])
        #expect(m.disconnection == .init(by: .server, code: 4200, reason: "reconnect"))
        #expect(m.handle(.closeWritten(.upstream)) == [.drop(.upstream)])
        #expect(m.handle(.closeWritten(.client)) == [.dropAfterGrace(.client)])
        #expect(m.handle(.closeReceived(.client, code: 4200, reason: "")) == [.drop(.client)])
        #expect(m.handle(.ended(.client)) == [.reportDisconnection])
        #expect(m.handle(.ended(.upstream)).isEmpty)
        #expect(m.state == .closed)
    }

    @Test func bothClosingAtOnceSendsEachOneCloseFrame() {
        var m = Self.open()
        _ = m.handle(.closeReceived(.client, code: 1000, reason: "c"))
        // The upstream's own close crossed ours: it is not answered again, its socket goes.
        #expect(m.handle(.closeReceived(.upstream, code: 1001, reason: "u")) == [.drop(.upstream)])
        #expect(m.disconnection == .init(by: .client, code: 1000, reason: "c"), "the first reason stands")
        #expect(m.handle(.closeReceived(.upstream, code: 1001, reason: "u")).isEmpty, "a second close frame")
    }

    @Test func aCloseFrameWrittenToAnEndThatHasNotClosedWaitsForTheGrace() {
        var m = Self.open()
        _ = m.handle(.closeReceived(.client, code: 1001, reason: ""))
        #expect(m.handle(.closeWritten(.upstream)) == [.dropAfterGrace(.upstream)])
    }

    @Test func aClientThatDropsTakesTheUpstreamsSocketAndIsReportedOnce() {
        var m = Self.open()
        #expect(m.handle(.ended(.client)) == [.drop(.upstream), .reportDisconnection])
        #expect(m.disconnection == .init(by: .client, code: 1006, reason: nil))
        #expect(m.handle(.ended(.client)).isEmpty)
        // The upstream's end that follows changes nothing that was said.
        #expect(m.handle(.ended(.upstream)).isEmpty)
        #expect(m.disconnection?.by == .client)
        #expect(m.state == .closed)
    }

    @Test func anUpstreamThatDropsDropsTheClient() {
        var m = Self.open()
        #expect(m.handle(.ended(.upstream)) == [.drop(.client)])
        #expect(m.disconnection?.by == .server)
        #expect(m.handle(.ended(.client)) == [.reportDisconnection])
        #expect(m.state == .closed)
    }

    @Test func bothSocketsEndingAtOnceAreReportedOnce() {
        var m = Self.open()
        let first = m.handle(.ended(.upstream))
        let second = m.handle(.ended(.client))
        #expect(first == [.drop(.client)])
        #expect(second == [.reportDisconnection], "the upstream is gone already: nothing to drop")
        #expect(m.state == .closed)
    }

    @Test func aProtocolFailureFailsThatEndClosesTheOtherAndStopsTheRelay() {
        var m = Self.open()
        #expect(
            m.handle(.protocolFailure(.upstream, code: 1002, reason: "RSV1 is set on a ping frame")) == [
                .sendClose(.upstream, code: 1002, reason: "RSV1 is set on a ping frame"),
                .sendClose(.client, code: 1011, reason: "The upstream broke the WebSocket protocol"),
            ])
        #expect(!m.relays)
        #expect(m.disconnection == .init(by: .server, code: 1011, reason: "upstream: RSV1 is set on a ping frame"))
        var c = Self.open()
        #expect(
            c.handle(.protocolFailure(.client, code: 1007, reason: "Text message is not valid UTF-8")) == [
                .sendClose(.client, code: 1007, reason: "Text message is not valid UTF-8"),
                .sendClose(.upstream, code: 1001, reason: ""),
            ])
        #expect(c.disconnection?.by == .client)
    }

    @Test func aCloseFaultSpeaksForTheServer() {
        var m = Self.open()
        #expect(
            m.handle(.faultClose(code: 4200, reason: "Generic reconnect immediately")) == [
                .sendClose(.upstream, code: 1001, reason: ""),
                .sendClose(.client, code: 4200, reason: "Generic reconnect immediately"),
            ])
        #expect(m.disconnection == .init(by: .server, code: 4200, reason: "Generic reconnect immediately"))
        #expect(!m.relays)
        // The client answers and goes, the upstream's socket goes: the fault's code is what the row says.
        #expect(m.handle(.closeReceived(.client, code: 4200, reason: "")) == [.drop(.client)])
        #expect(m.handle(.ended(.client)) == [.reportDisconnection])
        #expect(m.disconnection?.code == 4200)
    }

    @Test func aDropFaultDropsTheClientWithoutACloseFrame() {
        var d = Self.open()
        #expect(
            d.handle(.faultClose(code: 1006, reason: "dropped")) == [
                .sendClose(.upstream, code: 1001, reason: ""), .drop(.client),
            ])
        #expect(d.handle(.ended(.client)) == [.reportDisconnection], "the upstream had its close frame")
        #expect(d.disconnection == .init(by: .server, code: 1006, reason: "dropped"))
    }

    @Test func aJudgeDropsAStalledClient() {
        var m = Self.open()
        _ = m.handle(.stall)
        #expect(m.handle(.dropClient) == [.sendClose(.upstream, code: 1001, reason: ""), .drop(.client)])
        #expect(m.disconnection == .init(by: .server, code: 1006, reason: Machine.dropReason))
    }

    @Test(
        arguments: [(4201, ConsoleClosedBy.timeout), (4100, .slowConsumer), (4009, .server), (nil, .server)]
            as [(Int?, ConsoleClosedBy)])
    func theUpstreamsCodeSaysWhoClosed(_ code: Int?, _ by: ConsoleClosedBy) {
        var m = Self.open()
        _ = m.handle(.closeReceived(.upstream, code: code, reason: ""))
        #expect(m.disconnection?.by == by)
        #expect(m.disconnection?.code == code ?? 1005)
    }

    // MARK: - Closing: late events

    @Test func aFaultOnAClosingRelayComesTooLate() {
        var m = Self.open()
        _ = m.handle(.closeReceived(.client, code: 1000, reason: "bye"))
        #expect(Self.ignores(m, [.faultClose(code: 4200, reason: "r"), .faultClose(code: 1006, reason: "r"), .stall]))
        #expect(m.disconnection == .init(by: .client, code: 1000, reason: "bye"))
        // A judge that wants the socket gone still has it dropped; who closed it stands.
        #expect(m.handle(.dropClient) == [.drop(.client)])
        #expect(m.disconnection?.by == .client)
    }

    @Test func noCloseFrameGoesTwiceToAnEnd() {
        var m = Self.open()
        _ = m.handle(.protocolFailure(.client, code: 1002, reason: "x"))
        // Whatever comes after, the client's and the upstream's close frames were already sent.
        let after =
            m.handle(.closeReceived(.upstream, code: 1000, reason: "")) + m.handle(.faultClose(code: 4200, reason: ""))
            + m.handle(.protocolFailure(.upstream, code: 1002, reason: "y"))
        #expect(!after.contains { if case .sendClose = $0 { return true } else { return false } })
        #expect(m.disconnection?.code == 1002)
    }

    @Test func noCloseFrameGoesToAnEndWhoseSocketEnded() {
        var m = Self.open()
        _ = m.handle(.ended(.upstream))
        #expect(
            m.handle(.closeReceived(.client, code: 1000, reason: "")) == [.sendClose(.client, code: 1000, reason: "")])
        #expect(m.handle(.closeWritten(.upstream)).isEmpty, "no drop of a socket that ended")
    }

    @Test func aClosedRelayIgnoresEverything() {
        var m = Self.open()
        _ = m.handle(.ended(.client))
        _ = m.handle(.ended(.upstream))
        #expect(m.state == .closed)
        #expect(Self.ignores(m, Self.everyEvent))
        #expect(m.clientEnded && !m.relays)
    }
}
