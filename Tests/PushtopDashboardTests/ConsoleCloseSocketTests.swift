import PusherProtocol
import PushtopDashboardFakes
import Testing

@testable import PushtopDashboard

/// `x` on a console row: close that socket with 4200 through `pushtop proxy`'s control endpoint.
struct ConsoleCloseSocketTests {
    @Test func xOnAConnectionRowAsksToCloseItsSocketWith4200() {
        let ms = Int64(t0 * 1000)
        var state = DashboardState(size: Size(rows: 42, columns: 140), now: t0)
        _ = state.reduce(.console(ConsoleUpdate(rows: ScriptedConsole.scenario(at: ms))))
        state.press(.char("C"))
        // The first row is socket 100.1's connection.
        let effects = state.press(.char("g"), .char("x"))
        #expect(effects == [.closeSocket(socketID: "100.1", code: 4200)])
        #expect(frame(state).contains("closing 100.1 with 4200"))
        // In the help (and docs/keys.md): the key table has it in the console's scope.
        #expect(ConsoleKeys.bindings.contains { $0.help.contains("close its socket with 4200") })
    }

    @Test func xOnARowWithoutASocketSaysSo() {
        var state = DashboardState(size: Size(rows: 42, columns: 140), now: t0)
        var row = ConsoleRow(type: .apiMessage, timeMs: Int64(t0 * 1000))
        row.channel = "news"
        _ = state.reduce(.console(ConsoleUpdate(rows: [row])))
        state.press(.char("C"))
        #expect(state.press(.char("g"), .char("x")).isEmpty)
        #expect(frame(state).contains("this row names no socket"))
    }
}
