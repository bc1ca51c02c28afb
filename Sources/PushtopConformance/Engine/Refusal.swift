/// What a server did when it refused a connection or a request: every `pusher:error` it sent (in order), and how
/// the connection ended, judged apart so that a right code with a missing close frame is told as exactly that.
public struct Refusal: Sendable {
    /// The `pusher:error` frames received.
    public var errors: [ProbeFrame]
    /// `pusher:connection_established` came: the server accepted what it should have refused.
    public var established: Bool
    /// How the connection ended (or that it stayed open).
    public var end: ConnectionEnd
    /// What came, as a failure's "got" says it.
    public var received: String

    /// The codes of the `pusher:error` frames, in order.
    public var errorCodes: [Int] { errors.compactMap(\.errorCode) }

    /// Whether the server refused with `code`: a `pusher:error` with it, or (with no `pusher:error` at all) a close
    /// frame with it.
    public func refused(with code: Int) -> Bool {
        errorCodes.contains(code) || (errors.isEmpty && end.closeCode == code)
    }
}

extension CaseContext {
    /// Waits for `socket` (from frame `from` on) to be refused: a `pusher:error`, a close frame, the end of the
    /// connection or `pusher:connection_established`; then, unless it already ended, up to ``patience`` for how the
    /// connection ends. Nothing received is lost: frames that came just before a dropped connection are judged.
    public func refusal(of socket: ProbeSocket, from: Int = 0, timeout: Double? = nil) async -> Refusal {
        let wait = timeout ?? patience
        _ = await socket.waitFor(wait, from: from) { frame in
            frame.isRefusal || (frame.direction == .received && frame.message?.event == "pusher:connection_established")
        }
        let established = socket.frames.dropFirst(from).contains {
            $0.direction == .received && $0.message?.event == "pusher:connection_established"
        }
        let end = established ? ConnectionEnd.open(after: 0) : await socket.end(within: wait)
        let errors = socket.frames.dropFirst(from).filter {
            $0.direction == .received && $0.message?.event == "pusher:error"
        }
        var received = socket.received(from: from)
        if case .open(let after) = end, !established {
            received += received == "nothing" ? " within \(ConnectionEnd.seconds(after)) s" : ""
            received += " (the connection is still open)"
        }
        return Refusal(errors: Array(errors), established: established, end: end, received: received)
    }
}
