import PusherProtocol
import Testing

@testable import PushtopCLI

/// The deviations servers have shipped, each fed to the auditor as a scripted sequence of requests.
@Suite struct WebhookAuditorTests {
    static let t0: Int64 = 1_732_190_000_000

    /// A well-formed body at `t0 + atMs`.
    static func body(_ events: String, atMs: Int64 = 0) -> JSONValue {
        JSONValue.parseIfJSON(#"{"time_ms":\#(t0 + atMs),"events":[\#(events)]}"#)!
    }

    static func problems(_ audit: WebhookAuditor.Audit) -> [String] {
        audit.rows.filter { $0.type == .webhookProblem }.compactMap(\.problem)
    }

    @Test func aWellFormedPayloadHasNoProblems() {
        var auditor = WebhookAuditor()
        let audit = auditor.audit(
            Self.body(
                #"{"name":"channel_occupied","channel":"a"},{"name":"member_added","channel":"presence-a","user_id":"1"}"#
            ), receivedAtMs: Self.t0 + 20)
        #expect(Self.problems(audit).isEmpty)
        #expect(audit.rows.map(\.type) == [.occupied, .presenceEvent])
        // time_ms is the payload's.
        #expect(audit.rows.allSatisfy { $0.timeMs == Self.t0 })
    }

    @Test func clientEventDataThatIsNotAStringIsAProblemAndTheRowKeepsIt() {
        var auditor = WebhookAuditor()
        let audit = auditor.audit(
            Self.body(
                #"{"name":"client_event","channel":"private-a","event":"client-x","data":{"n":1},"socket_id":"1.2"}"#),
            receivedAtMs: Self.t0)
        #expect(audit.rows.map(\.type) == [.clientEvent, .webhookProblem])
        #expect(audit.rows[0].data == #"{"n":1}"#)
        #expect(audit.rows[1].problem == WebhookProblem.wrongType)
        #expect(
            audit.rows[1].cause
                == #"client_event data is an object, not a string: {"n":1} (the official SDKs hand data to apps as a string)"#
        )
        #expect(audit.rows[1].channel == "private-a")
    }

    @Test func anyFieldOfTheWrongTypeIsNamed() {
        var auditor = WebhookAuditor()
        let audit = auditor.audit(
            Self.body(
                #"{"name":"member_added","channel":"presence-a","user_id":42},"#
                    + #"{"name":"subscription_count","channel":"a","subscription_count":"3"}"#),
            receivedAtMs: Self.t0)
        let causes = audit.rows.filter { $0.problem == WebhookProblem.wrongType }.compactMap(\.cause)
        #expect(
            causes == [
                "member_added user_id is a number, not a string: 42",
                #"subscription_count subscription_count is a string, not a number: "3""#,
            ])
        #expect(audit.rows.first?.userID == "42", "the row keeps the user id the server sent")
        #expect(!Self.problems(audit).contains(WebhookProblem.missingFields))
    }

    @Test func aPayloadNotWrappedInEvents() {
        var auditor = WebhookAuditor()
        let bare = auditor.audit(
            JSONValue.parseIfJSON(#"{"name":"channel_occupied","channel":"a","time_ms":\#(Self.t0)}"#)!,
            receivedAtMs: Self.t0)
        #expect(Self.problems(bare) == [WebhookProblem.unwrappedEvents])
        #expect(bare.rows.contains { $0.type == .occupied && $0.channel == "a" })
        let array = auditor.audit(
            JSONValue.parseIfJSON(#"[{"name":"channel_vacated","channel":"b"}]"#)!, receivedAtMs: Self.t0)
        #expect(Self.problems(array).contains(WebhookProblem.unwrappedEvents))
        #expect(array.rows.contains { $0.type == .vacated && $0.channel == "b" })
        let none = auditor.audit(JSONValue.parseIfJSON(#"{"time_ms":\#(Self.t0)}"#)!, receivedAtMs: Self.t0)
        #expect(Self.problems(none) == [WebhookProblem.noEvents])
    }

    @Test(arguments: [
        #"{"events":[]}"#, #"{"time_ms":"soon","events":[]}"#, #"{"time_ms":1732190000,"events":[]}"#,
        #"{"time_ms":1732180000000,"events":[]}"#,
    ])
    func aMissingOrInvalidTimeMs(payload: String) {
        var auditor = WebhookAuditor()
        let audit = auditor.audit(JSONValue.parseIfJSON(payload)!, receivedAtMs: Self.t0)
        #expect(Self.problems(audit) == [WebhookProblem.invalidTimeMs])
    }

    @Test func timeMsInSecondsIsHinted() {
        var auditor = WebhookAuditor()
        let audit = auditor.audit(JSONValue.parseIfJSON(#"{"time_ms":1732190000,"events":[]}"#)!, receivedAtMs: Self.t0)
        #expect(audit.rows.first?.cause?.contains("seconds instead of milliseconds") == true)
    }

    @Test func anEventMissingItsDocumentedFieldsOrUnknown() {
        var auditor = WebhookAuditor()
        let audit = auditor.audit(
            Self.body(
                #"{"name":"member_added","channel":"presence-a"},{"name":"client_event","channel":"private-a","event":"client-x","socket_id":"1.1"},{"name":"channel_exploded","channel":"a"}"#
            ), receivedAtMs: Self.t0)
        #expect(
            Self.problems(audit) == [
                WebhookProblem.missingFields, WebhookProblem.missingFields, WebhookProblem.unknownEvent,
            ])
        #expect(audit.rows.contains { $0.cause == "member_added without user_id" })
        #expect(audit.rows.contains { $0.cause == "client_event without data" })
    }

    /// soketi PR #438: every node of a cluster sent the same channel_occupied.
    @Test func theSameEventFromSeveralNodes() {
        var auditor = WebhookAuditor()
        let event = #"{"name":"channel_occupied","channel":"orders"}"#
        #expect(Self.problems(auditor.audit(Self.body(event), receivedAtMs: Self.t0)).isEmpty)
        let second = auditor.audit(Self.body(event, atMs: 30), receivedAtMs: Self.t0 + 30)
        #expect(Self.problems(second) == [WebhookProblem.duplicateEvent])
        #expect(second.rows.last?.channel == "orders")
        // A client event twice from two nodes, too.
        let client = #"{"name":"client_event","channel":"private-a","event":"client-x","data":"{}","socket_id":"1.1"}"#
        _ = auditor.audit(Self.body(client), receivedAtMs: Self.t0 + 100)
        #expect(
            Self.problems(auditor.audit(Self.body(client), receivedAtMs: Self.t0 + 150)) == [
                WebhookProblem.duplicateEvent
            ])
        // The same event again after the window is a new one (a channel that emptied and filled is no_grace, not
        // this; another member is another key).
        #expect(Self.problems(auditor.audit(Self.body(client), receivedAtMs: Self.t0 + 5000)).isEmpty)
    }

    /// soketi #830: member_removed then member_added within Pusher's 3 s grace: Pusher would have sent neither.
    @Test func aDepartureWithoutGrace() {
        var auditor = WebhookAuditor()
        let removed = #"{"name":"member_removed","channel":"presence-room","user_id":"7"}"#
        let added = #"{"name":"member_added","channel":"presence-room","user_id":"7"}"#
        _ = auditor.audit(Self.body(removed), receivedAtMs: Self.t0)
        let back = auditor.audit(Self.body(added, atMs: 1200), receivedAtMs: Self.t0 + 1200)
        #expect(Self.problems(back) == [WebhookProblem.noGrace])
        #expect(back.rows.last?.userID == "7")
        #expect(back.rows.last?.channel == "presence-room")
        // After the grace, it is a real departure and return.
        _ = auditor.audit(Self.body(removed, atMs: 10_000), receivedAtMs: Self.t0 + 10_000)
        #expect(Self.problems(auditor.audit(Self.body(added, atMs: 13_500), receivedAtMs: Self.t0 + 13_500)).isEmpty)
        // Another user's arrival is not the same member.
        _ = auditor.audit(Self.body(removed, atMs: 20_000), receivedAtMs: Self.t0 + 20_000)
        let other = #"{"name":"member_added","channel":"presence-room","user_id":"8"}"#
        #expect(Self.problems(auditor.audit(Self.body(other, atMs: 20_100), receivedAtMs: Self.t0 + 20_100)).isEmpty)
        // A channel vacated then occupied again within 3 s.
        _ = auditor.audit(Self.body(#"{"name":"channel_vacated","channel":"c"}"#), receivedAtMs: Self.t0 + 30_000)
        let again = auditor.audit(
            Self.body(#"{"name":"channel_occupied","channel":"c"}"#), receivedAtMs: Self.t0 + 32_000)
        #expect(Self.problems(again) == [WebhookProblem.noGrace])
    }

    /// soketi #616: the receiver asks the HTTP API about each vacated channel.
    @Test func vacatedChannelsAreListedForTheAPICheck() {
        var auditor = WebhookAuditor()
        let audit = auditor.audit(
            Self.body(#"{"name":"channel_vacated","channel":"a"},{"name":"channel_vacated","channel":"b"}"#),
            receivedAtMs: Self.t0)
        #expect(audit.vacated == ["a", "b"])
        let row = WebhookAuditor.vacatedWhileSubscribed(
            channel: "a", subscribers: 2, timeMs: Self.t0, appID: "1", remoteAddress: nil)
        #expect(row.type == .webhookProblem)
        #expect(row.problem == WebhookProblem.vacatedWhileSubscribed)
        #expect(row.subscriptionCount == 2)
    }

    @Test func memoryStaysBounded() {
        var auditor = WebhookAuditor()
        auditor.capacity = 100
        for i in 0..<10_000 {
            _ = auditor.audit(
                Self.body(#"{"name":"channel_occupied","channel":"c\#(i)"}"#), receivedAtMs: Self.t0 + Int64(i))
        }
        #expect(auditor.remembered <= 100)
    }
}
