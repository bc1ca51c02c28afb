import PusherProtocol
import PushtopDashboardFakes
import Testing

@testable import PushtopDashboard

/// The console's `K` (its row in `?` and docs/keys.md comes from the key table, checked by KeyReferenceTests): on a row of a live socket, ask the `pushtop proxy` behind the feed to close it with 4200.
struct ConsoleKickTests {
    let ms = Int64(t0 * 1000)
    let proxyNode = "proxy:127.0.0.1:6001"

    /// The console open on the scripted session, as a proxy's feed shows it (every row of node `proxyNode`).
    func proxyConsole() -> DashboardState {
        var state = DashboardState(size: Size(rows: 42, columns: 140), now: t0)
        let rows = ScriptedConsole.scenario(at: ms).map { row -> ConsoleRow in
            var row = row
            row.node = proxyNode
            return row
        }
        _ = state.reduce(
            .console(
                ConsoleUpdate(
                    rows: rows,
                    sources: [ConsoleSourceStatus(name: "127.0.0.1:6002", kind: .serverFeed, state: .live)])))
        state.press(.char("C"))
        return state
    }

    @Test func kOnAConnectionRowAsksTheProxyToCloseThatSocketWith4200() {
        var state = proxyConsole()
        state.press(.char("g"))
        #expect(state.console.selectedRow?.row.type == .connection)
        #expect(state.console.selectedRow?.row.socketID == "100.1")
        let effects = state.press(.char("K"))
        let expected = ConsoleFaultRequest(socketID: "100.1", code: 4200, node: proxyNode)
        #expect(effects == [.consoleFault(expected)])
        #expect(expected.rule == "close:4200,socket=100.1,times=1")
        #expect(state.view == .console)
        #expect(frame(state).contains("asking the proxy to close socket 100.1 with 4200"))
        // The proxy's answer, as the runner posts it, replaces the status.
        _ = state.reduce(.notice("127.0.0.1:6002 closes socket 100.1 with 4200", isError: false))
        #expect(frame(state).contains("127.0.0.1:6002 closes socket 100.1 with 4200"))
    }

    @Test func kOnTheSecondConnectionNamesItsOwnSocket() {
        var state = proxyConsole()
        state.press(.char("g"), .char("j"), .char("j"), .char("j"))
        #expect(state.console.selectedRow?.row.socketID == "200.2")
        #expect(state.press(.char("K")) == [.consoleFault(.init(socketID: "200.2", code: 4200, node: proxyNode))])
    }

    @Test func kOnARowWithoutALiveSocketAsksNothingAndSaysWhy() {
        var state = proxyConsole()
        // The API message names no socket.
        state.press(.char("g"))
        for _ in 0..<6 { state.press(.char("j")) }
        #expect(state.console.selectedRow?.row.type == .apiMessage)
        #expect(state.press(.char("K")) == [])
        #expect(frame(state).contains("this row names no socket"))
        // A disconnection's socket is gone already.
        var closed = proxyConsole()
        var row = ConsoleRow(type: .disconnection, timeMs: ms + 10)
        row.socketID = "100.1"
        row.code = 4200
        _ = closed.reduce(.console(ConsoleUpdate(rows: [row])))
        #expect(closed.console.selectedRow?.row.type == .disconnection)
        #expect(closed.press(.char("K")) == [])
        #expect(closed.status?.text == "socket 100.1 is already closed")
    }

    @Test func kIsInTheConsolesHintsAndHelpOnly() {
        let state = proxyConsole()
        #expect(frame(state).contains("K  kick"))
        let table = state.configuration.keyTable
        #expect(table.action(for: .char("K"), focus: .log, view: .console) == .consoleAction(.kick))
        #expect(
            table.bindings.contains {
                $0.action == .consoleAction(.kick) && $0.help.contains("close the row's socket, 4200")
            })
        // Outside the console, K does nothing.
        var panes = demoState()
        #expect(panes.press(.char("K")) == [])
    }
}
