/// One node of an app (`HOST:PORT`, `[IPv6]:PORT`): where `--node` and a profile's `nodes` connect.
public struct NodeAddress: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }
}

extension NodeAddress {
    /// Parses `HOST:PORT`; `nil` when it is not one (see ``problem(_:)`` for why).
    public init?(_ text: String) { self.init(text, ports: 1...65535) }

    /// Parses where to listen, `HOST:PORT` (`[IPv6]:PORT`) as ``init(_:)`` does, with port 0 (any free port)
    /// allowed too: `--listen`, `--webhook-listen`.
    public static func listening(_ text: String) -> NodeAddress? { NodeAddress(text, ports: 0...65535) }

    private init?(_ text: String, ports: ClosedRange<Int>) {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains("/"), !host.contains(" "),
            let port = Int(text[text.index(after: colon)...]), ports.contains(port)
        else { return nil }
        self.host = host
        self.port = port
    }

    /// Why `text` is not a node address.
    public static func problem(_ text: String) -> String {
        guard let colon = text.lastIndex(of: ":") else { return "expected HOST:PORT, found '\(text)' (no port)" }
        let port = text[text.index(after: colon)...]
        if let n = Int(port), !(1...65535).contains(n) { return "expected a port 1-65535 in '\(text)'" }
        if Int(port) == nil { return "expected HOST:PORT, found '\(text)' ('\(port)' is not a port)" }
        return "expected HOST:PORT, found '\(text)' (no scheme or path)"
    }

    /// `HOST:PORT` (`[::1]:PORT` for IPv6).
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
