import Foundation

/// The parts of a `ws://` or `wss://` URL that a connection needs (`package`: `pushtop conform`'s probe socket
/// reads URLs the same way).
package struct WebSocketURL: Sendable, Equatable {
    package var useTLS: Bool
    package var host: String
    package var port: Int
    /// The request target: path and query.
    package var target: String

    /// The `Host` header: the host, bracketed when IPv6, with the port unless it is the scheme's default.
    package var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (useTLS ? 443 : 80) ? name : "\(name):\(port)"
    }

    /// Whether the host is an IP address (no SNI is sent for those).
    package var hostIsIPAddress: Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    package init?(_ string: String) {
        guard let components = URLComponents(string: string), let scheme = components.scheme?.lowercased(),
            scheme == "ws" || scheme == "wss", var host = components.host, !host.isEmpty
        else { return nil }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.useTLS = scheme == "wss"
        self.host = host
        self.port = components.port ?? (useTLS ? 443 : 80)
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        self.target = components.percentEncodedQuery.map { "\(path)?\($0)" } ?? path
    }
}
