import NIOHTTP1

/// permessage-deflate (RFC 7692) as agreed with one client: what the server answered and how it compresses.
///
/// The server always asks for no context takeover in both directions:
/// - `server_no_context_takeover`: every message is compressed on its own, so one compressed frame serves every
///   compressed subscriber of an event (compressed once per event and event loop, see ``EncodedTextFrame``);
/// - `client_no_context_takeover` (which a server may include unasked, section 7.1.1.1): every client message
///   inflates on its own, so no inflater stays with a connection and inflation is bounded per message.
///
/// Outbound messages are compressed with a 2^15-byte window; when the client limits the server's window
/// (`server_max_window_bits=N`), a message longer than 2^N bytes goes uncompressed to it (a message of at most
/// 2^N bytes never refers further back than its own start), which the RFC allows message by message.
package struct PerMessageDeflate: Sendable, Equatable {
    /// The window the client inflates with, as a power of two (8...15).
    let serverMaxWindowBits: Int
    /// The `Sec-WebSocket-Extensions` value of the upgrade response.
    package let responseHeader: String

    /// The longest message that may be sent compressed to this client.
    package var maxCompressedMessageBytes: Int { 1 << serverMaxWindowBits }

    /// The agreement for the first offer the server can honour among those of `headers`; `nil` when the client
    /// offers none (then the response names no extension and nothing is compressed).
    package static func negotiate(_ headers: HTTPHeaders) -> PerMessageDeflate? {
        let values = headers[canonicalForm: "sec-websocket-extensions"].map(String.init)
        guard let offer = DeflateOffer.offers(in: values).first else { return nil }
        return PerMessageDeflate(accepting: offer)
    }

    /// The answer to an offer the server can honour (every valid offer: it inflates any client window up to 2^15).
    init(accepting offer: DeflateOffer) {
        serverMaxWindowBits = offer.serverMaxWindowBits ?? 15
        var header = "permessage-deflate; server_no_context_takeover; client_no_context_takeover"
        if let bits = offer.serverMaxWindowBits { header += "; server_max_window_bits=\(bits)" }
        responseHeader = header
    }
}
