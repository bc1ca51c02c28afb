import PusherProtocol
import Testing

@testable import PushtopProxy

/// The fault rules' compact syntax, their JSON form, and how the book counts and matches them.
@Suite struct FaultRuleTests {
    @Test func theCompactSyntaxReadsEveryActionAndKey() throws {
        let close = try FaultRule(parsing: "close:4200,after=2s,times=1")
        #expect(close.action == .close(code: 4200) && close.after == 2 && close.times == 1)
        #expect(try FaultRule(parsing: "close:1006").action == .close(code: 1006))
        let refuse = try FaultRule(parsing: "refuse-subscribe:3,channel=private-*")
        #expect(refuse.action == .refuseSubscriptions(count: 3) && refuse.channel == "private-*")
        #expect(try FaultRule(parsing: "delay:500ms,event=price").action == .delay(milliseconds: 500))
        #expect(try FaultRule(parsing: "delay:2s").action == .delay(milliseconds: 2000))
        #expect(try FaultRule(parsing: "outage:10").action == .outage(seconds: 10))
        let scoped = try FaultRule(parsing: "stall,socket=1.2,user=alice,fraction=0.5")
        #expect(scoped.action == .stall && scoped.socketID == "1.2" && scoped.userID == "alice")
        #expect(scoped.fraction == 0.5)
        #expect(
            try FaultRule(parsing: "drop,channel=ticker,event=price").description == "drop,channel=ticker,event=price")
    }

    @Test func aBadRuleSaysWhatIsWrong() {
        #expect(throws: FaultRuleError.self) { try FaultRule(parsing: "close") }
        #expect(throws: FaultRuleError.self) { try FaultRule(parsing: "explode") }
        #expect(throws: FaultRuleError.self) { try FaultRule(parsing: "drop,fraction=2") }
        #expect(throws: FaultRuleError.self) { try FaultRule(parsing: "drop,colour=red") }
        do {
            _ = try FaultRule(parsing: "close:abc")
            Issue.record("accepted close:abc")
        } catch {
            #expect(error.description.contains("close needs a close code"))
        }
    }

    @Test func theJSONFormMatchesTheCompactOne() throws {
        let json = try #require(JSONValue.parseIfJSON(#"{"action":"close","code":4200,"socket_id":"1.2","times":1}"#))
        #expect(try FaultRule(json: json) == FaultRule(parsing: "close:4200,socket=1.2,times=1"))
        let rule = try #require(JSONValue.parseIfJSON(#"{"rule":"delay:300ms,channel=ticker"}"#))
        #expect(try FaultRule(json: rule).action == .delay(milliseconds: 300))
    }

    @Test func patternsMatchWithStars() {
        #expect(Glob.matches("private-*", "private-room"))
        #expect(Glob.matches("*-room", "private-room"))
        #expect(Glob.matches("a*b*c", "aXXbYYc"))
        #expect(!Glob.matches("private-*", "presence-room"))
        #expect(Glob.matches("ticker", "ticker") && !Glob.matches("ticker", "tickers"))
    }

    @Test func aFractionChoosesAboutThatShareOfConnections() {
        let chosen = (1...1000).filter { FaultRule.chosen($0, fraction: 0.25) }.count
        #expect((230...270).contains(chosen), "\(chosen)")
    }

    @Test func theBookRefusesTheNextNSubscriptionsOnly() throws {
        let book = FaultBook([try FaultRule(parsing: "refuse-subscribe:2,channel=private-*")])
        func refused(_ channel: String) -> Bool {
            book.refusal(channel: channel, socketID: "1.1", userID: nil, connectionNumber: 1) != nil
        }
        #expect(!refused("news"))
        #expect(refused("private-a"))
        #expect(refused("private-b"))
        #expect(!refused("private-c"))
        #expect(book.entries.first?.applied == 2)
    }

    @Test func anOutageLastsItsSecondsFromWhenItWasAdded() throws {
        let book = FaultBook()
        let start = ContinuousClock.now
        book.add(try FaultRule(parsing: "outage:2s,after=1s"), now: start)
        #expect(book.outage(now: start) == nil)
        #expect(book.outage(now: start + .milliseconds(1500)) != nil)
        #expect(book.outage(now: start + .milliseconds(3100)) == nil)
    }

    @Test func eventFaultsMatchChannelAndEventAndStopAtTimes() throws {
        let book = FaultBook([try FaultRule(parsing: "drop,channel=ticker,event=price,times=1")])
        #expect(book.hasEventRules)
        func hit(_ channel: String, _ event: String) -> Bool {
            book.eventFault(channel: channel, event: event, socketID: nil, userID: nil, connectionNumber: 1) != nil
        }
        #expect(!hit("ticker", "volume"))
        #expect(hit("ticker", "price"))
        #expect(!hit("ticker", "price"))
    }
}
