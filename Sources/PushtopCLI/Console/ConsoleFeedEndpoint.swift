import Foundation
import PusherProtocol
import PushtopConfig

/// Where one `pushtop serve` node's debug feed is and the app it is signed as: `GET /apps/{id}/console`, signed
/// with the app secret like an HTTP API GET.
public struct ConsoleFeedEndpoint: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var tls: Bool
    public var appID: String
    public var key: String
    /// Signs the request; never sent, never printed (``description`` leaves it out).
    public var secret: String
    /// Row types the server is asked to send (`types=`); empty: every type.
    public var types: [ConsoleRowType]

    public init(
        host: String, port: Int, tls: Bool, appID: String, key: String, secret: String, types: [ConsoleRowType] = []
    ) {
        self.host = host
        self.port = port
        self.tls = tls
        self.appID = appID
        self.key = key
        self.secret = secret
        self.types = types
    }

    /// `HOST:PORT`, the name of the source (``ConsoleSourceStatus/name``).
    public var description: String { NodeAddress(host: host, port: port).description }

    /// The feed's path.
    public var path: String { "/apps/\(appID)/console" }

    /// The signed URL, with the signature made at `timestamp` (seconds since 1970).
    public func signedURL(timestamp: Int = Int(Date().timeIntervalSince1970)) -> String {
        var query: [String: String] = [:]
        if !types.isEmpty { query["types"] = types.map(\.rawValue).joined(separator: ",") }
        let parameters = APIRequestSignature.sign(
            method: "GET", path: path, key: key, secret: secret, body: nil, parameters: query, timestamp: timestamp)
        let queryString = parameters.sorted { $0.key < $1.key }
            .map { "\(Self.escape($0.key))=\(Self.escape($0.value))" }
            .joined(separator: "&")
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "\(tls ? "https" : "http")://\(hostPart):\(port)\(Self.escapePath(path))?\(queryString)"
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    static func escapePath(_ path: String) -> String {
        path.addingPercentEncoding(withAllowedCharacters: unreserved.union(CharacterSet(charactersIn: "/"))) ?? path
    }
}
