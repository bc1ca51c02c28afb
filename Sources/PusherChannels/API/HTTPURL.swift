import Foundation

/// The parts of an `http://` or `https://` URL that one request needs: where to connect, the `Host` header and the
/// request target.
struct HTTPURL: Sendable, Equatable {
    var useTLS: Bool
    /// The host name or IP address, without IPv6 brackets.
    var host: String
    var port: Int
    /// The request target: path and query, percent-encoded as given.
    var target: String

    /// The `Host` header: the host, bracketed when IPv6, with the port unless it is the scheme's default.
    var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (useTLS ? 443 : 80) ? name : "\(name):\(port)"
    }

    /// The name sent in TLS's server name indication: the host, unless it is an IP address (RFC 6066 forbids
    /// those; the certificate is then checked against the address).
    var serverName: String? {
        var v4 = in_addr()
        var v6 = in6_addr()
        let isAddress = inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
        return isAddress ? nil : host
    }

    init?(_ string: String) {
        guard let components = URLComponents(string: string), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", var host = components.host, !host.isEmpty
        else { return nil }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.useTLS = scheme == "https"
        self.host = host
        self.port = components.port ?? (useTLS ? 443 : 80)
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        self.target = components.percentEncodedQuery.map { "\(path)?\($0)" } ?? path
    }
}
