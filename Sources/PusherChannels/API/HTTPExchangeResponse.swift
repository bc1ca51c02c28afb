/// The answer to an ``HTTPExchange``: its status and its whole body.
struct HTTPExchangeResponse: Sendable, Equatable {
    var status: Int
    var body: [UInt8]

    /// The body as text (invalid UTF-8 repaired).
    var text: String { String(decoding: body, as: UTF8.self) }
}
