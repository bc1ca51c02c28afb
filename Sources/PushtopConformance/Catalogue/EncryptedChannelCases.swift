import Foundation
import PusherChannels
import PusherProtocol

/// private-encrypted- channels, end to end: the server relays ciphertext it cannot read and refuses client events.
enum EncryptedChannelCases {
    /// A master key of this run's own: the server never needs it (the app's backend encrypts, clients decrypt).
    static let masterKey: [UInt8] = (0..<32).map { _ in UInt8.random(in: 0...255) }

    /// The cases gated by the feature probe: optional, unsupported on a server without encrypted channels.
    static let encryptedCase = FeatureCases(.encryptedChannels, source: .encrypted)

    static let all: [ConformanceCase] = [
        ConformanceCase(
            "encrypted.subscribe", .optional, .encrypted,
            "A signed private-encrypted- subscription succeeds."
        ) { ctx in
            // Not gated by the feature probe (the same subscription): a refusal says the server lacks the feature, but
            // silence is a failure, as for any subscription.
            let c = try await ctx.connect()
            switch await ctx.subscribe(c, ctx.channel("private-encrypted-")) {
            case .succeeded: return .pass("subscribed")
            case .refused(let frame):
                return .unsupported(
                    "\(ServerFeature.encryptedChannels.rawValue): a signed subscription was refused: "
                        + SubscribeAnswer.describe(frame))
            case .silent:
                throw failure(
                    "pusher_internal:subscription_succeeded (or a refusal, when the server has no encrypted channels)",
                    "no answer within \(ctx.patience) s", ctx)
            }
        },
        encryptedCase(
            "encrypted.refused-without-auth", "A private-encrypted- subscription without a valid auth is refused."
        ) { ctx in
            try await ctx.mustRefuseWrongSignature(ctx.channel("private-encrypted-"))
        },
        encryptedCase(
            "encrypted.ciphertext-relayed",
            "An encrypted event (nonce and ciphertext) reaches subscribers unchanged and decrypts."
        ) { ctx in
            let channel = ctx.channel("private-encrypted-")
            let key = ChannelAuthSignature.sharedSecret(channel: channel, masterKey: masterKey)
            let plaintext = #"{"secret":"only clients read this 🔐"}"#
            let sealed = try ClientSecretBox.sealPusherPayload(plaintext, key: key)
            let message = try await ctx.deliveredToSubscriber("conform-sealed", on: channel, data: sealed)
            guard let text = message.dataText else { throw failure("data", message.jsonString, ctx) }
            try check(
                JSONValue.parseIfJSON(text) == JSONValue.parseIfJSON(sealed), "the sealed payload unchanged", text, ctx)
            let opened = try ClientSecretBox.openPusherPayload(text, key: key)
            try check(opened == plaintext, plaintext, opened, ctx)
            return .pass("relayed unchanged, decrypted")
        },
        encryptedCase(
            "encrypted.client-events-refused",
            "Client events on private-encrypted- channels are not delivered (clients cannot encrypt them)."
        ) { ctx in
            let channel = ctx.channel("private-encrypted-")
            let receiver = try await ctx.subscribed(channel)
            let sender = try await ctx.subscribed(channel)
            ctx.sendClientEvent(sender, channel, event: "client-conform-plain", data: ["plain": "text"])
            let error = try await ClientEventCases.notDelivered(
                ctx, sender, receiver, event: "client-conform-plain",
                barrierChannel: channel)
            return .pass(error.map { "refused: \(SubscribeAnswer.describe($0))" } ?? "dropped")
        },
    ]
}
