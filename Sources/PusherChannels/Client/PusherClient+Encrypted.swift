import Foundation
import PusherProtocol

extension PusherClient {
    // MARK: - Encrypted channels

    /// Ends a key refresh that failed: each event held for it is reported as a decryption error.
    func dropHeldEncrypted(_ name: String, reason: String) {
        guard var record = channels[name] else { return }
        let held = record.heldEncrypted
        record.refreshingKey = false
        record.heldEncrypted = []
        channels[name] = record
        for message in held {
            emit(.decryptionError(channel: name, event: message.event, message: reason))
        }
    }

    func receiveEncrypted(_ message: PusherMessage, raw: String?, channel: String, now t: Double) {
        guard let record = channels[channel] else { return }
        if record.refreshingKey {
            channels[channel]?.heldEncrypted.append(message)
            return
        }
        decryptAndDeliver(message, raw: raw, channel: channel, mayRefresh: true)
    }

    func decryptAndDeliver(_ message: PusherMessage, raw: String? = nil, channel: String, mayRefresh: Bool) {
        guard let record = channels[channel] else { return }
        do throws(ClientSecretBox.Failure) {
            guard let key = record.sharedSecret else { throw ClientSecretBox.Failure.badKey(size: 0) }
            let text = try ClientSecretBox.openPusherPayload(message.dataText ?? "", key: key)
            if record.keyRefreshed { channels[channel]?.keyRefreshed = false }
            deliver(
                ChannelEvent(
                    channel: channel, name: message.event, dataText: text, userID: message.userID,
                    receivedAt: wallClock(), rawFrame: raw))
        } catch {
            if mayRefresh, !record.keyRefreshed, error == .authenticationFailed || error == .badKey(size: 0),
                let socketID = machine.socketID, let authorizer = options.authorizer
            {
                // The key may have rotated: fetch a fresh one once, then try again.
                channels[channel]?.keyRefreshed = true
                channels[channel]?.refreshingKey = true
                channels[channel]?.heldEncrypted = [message]
                channels[channel]?.authorizationGeneration += 1
                requestAuthorization(
                    channel, socketID: socketID, authorizer: authorizer,
                    generation: channels[channel]!.authorizationGeneration)
                return
            }
            emit(.decryptionError(channel: channel, event: message.event, message: error.description))
        }
    }
}
