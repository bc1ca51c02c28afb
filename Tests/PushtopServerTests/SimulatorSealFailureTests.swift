import Foundation
import PusherProtocol
import Testing

@testable import PushtopServer

/// Sealing an encrypted event never fails silently: `sealForPusher` throws instead of returning an empty box
/// (the release build once published `{"ciphertext":""}` for every vault event, swiftlang/swift#90477), and a
/// failure the simulator meets reaches its counter, the hub's metrics and the debug feed.
@Suite struct SimulatorSealFailureTests {
    @Test func aBoxIsNeverReturnedEmpty() throws {
        #expect(throws: SecretBox.Failure.badKey(size: 3)) {
            try ServerSecretBox.sealForPusher("secret", key: [1, 2, 3])
        }
        let key = [UInt8](repeating: 7, count: 32)
        let data = try ServerSecretBox.sealForPusher("vault code 1234", key: key)
        guard case .object(let fields) = try JSONValue(parsing: data),
            let cipher = fields["ciphertext"]?.stringValue, let nonce = fields["nonce"]?.stringValue
        else {
            Issue.record("not a Pusher encrypted payload: \(data)")
            return
        }
        #expect(cipher.count > 0 && nonce.count == 32)  // base64 of 31 bytes; of 24
        #expect(
            ServerSecretBox.openFromPusher(
                ciphertext: Array(base64: cipher), nonce: Array(base64: nonce), key: key) == "vault code 1234")
    }

    @Test func aSealFailureIsCountedAndShownOnTheDebugFeed() async throws {
        let hub = PusherHub(configuration: ServerConfiguration())
        let listener = hub.console.addListener(types: [.error])
        await hub.recordSimulatorSealFailure(channel: "private-encrypted-vault", reason: "secretbox key is 3 bytes")
        #expect(await hub.statistics.simulatorSealFailures == 1)
        let metrics = PrometheusMetrics().render(await hub.statistics)
        #expect(metrics.contains("pushtop_simulator_seal_failures_total 1"), "\(metrics)")
        guard case .rows(let rows) = await listener.next() else {
            Issue.record("no row on the debug feed")
            return
        }
        #expect(rows.count == 1)
        #expect(rows.first?.type == .error)
        #expect(rows.first?.rule == "simulator_seal")
        #expect(rows.first?.channel == "private-encrypted-vault")
        #expect(rows.first?.reason?.contains("secretbox key is 3 bytes") == true)
    }
}

extension Array where Element == UInt8 {
    fileprivate init(base64 text: String) {
        self = Array(Data(base64Encoded: text) ?? Data())
    }
}
