/// Where a Redis server is and how to sign in: `redis://[[user]:password@]host[:port][/db]`.
///
/// ```swift
/// let url = try RedisURL("redis://:secret@10.0.0.5:6380/2")
/// ```
///
/// Only plain `redis://` is supported (no `rediss://` TLS, no Unix sockets). IPv6 hosts go in brackets
/// (`redis://[::1]:6379`). ``description`` never shows the password.
public struct RedisURL: Sendable, Hashable {
    /// The host name or IP address (IPv6 without brackets).
    public var host: String
    /// The TCP port (default 6379).
    public var port: Int
    /// The ACL user name for `AUTH user password`; `nil` signs in as the default user.
    public var username: String?
    /// The password for `AUTH`; `nil`: no `AUTH`.
    public var password: String?
    /// The database selected with `SELECT` after connecting (default 0).
    public var database: Int

    /// A URL from its parts.
    public init(host: String, port: Int = 6379, username: String? = nil, password: String? = nil, database: Int = 0) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
    }

    /// Parses `redis://[[user]:password@]host[:port][/db]`; user and password may be percent-encoded.
    ///
    /// - Throws: ``RedisError/invalidURL(_:reason:)`` naming what is wrong (the password is never repeated).
    public init(_ text: String) throws(RedisError) {
        func fail(_ reason: String) -> RedisError { .invalidURL(Self.redacting(text), reason: reason) }
        let scheme = "redis://"
        guard text.lowercased().hasPrefix(scheme) else {
            if text.lowercased().hasPrefix("rediss://") { throw fail("TLS (rediss://) is not supported") }
            throw fail("it must start with redis://")
        }
        var rest = Substring(text.dropFirst(scheme.count))
        if let query = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            throw fail("unexpected \"\(rest[query...].prefix(20))\" (no query or fragment is supported)")
        }
        let database = try Self.takeDatabase(from: &rest, fail: fail)
        let (username, password) = try Self.takeUserinfo(from: &rest, fail: fail)
        let (host, port) = try Self.hostAndPort(rest, fail: fail)
        self.init(host: host, port: port, username: username, password: password, database: database)
    }

    /// The database: after the first "/" that follows the authority (0 when absent). Leaves the authority in `rest`.
    private static func takeDatabase(
        from rest: inout Substring, fail: (String) -> RedisError
    ) throws(RedisError) -> Int {
        guard let slash = rest.firstIndex(of: "/") else { return 0 }
        let path = rest[rest.index(after: slash)...]
        rest = rest[..<slash]
        guard !path.isEmpty else { return 0 }
        guard let number = Int(path), number >= 0 else {
            throw fail("the database \"\(path.prefix(20))\" is not a number 0 or more")
        }
        return number
    }

    /// The user and password before the last "@", percent-decoded. Leaves what follows the "@" in `rest`.
    private static func takeUserinfo(
        from rest: inout Substring, fail: (String) -> RedisError
    ) throws(RedisError) -> (username: String?, password: String?) {
        guard let at = rest.lastIndex(of: "@") else { return (nil, nil) }
        let userinfo = rest[..<at]
        rest = rest[rest.index(after: at)...]
        if let colon = userinfo.firstIndex(of: ":") {
            let user = userinfo[..<colon]
            guard let decodedUser = percentDecoded(user),
                let decodedPassword = percentDecoded(userinfo[userinfo.index(after: colon)...])
            else { throw fail("bad percent-encoding in the user or password") }
            return (user.isEmpty ? nil : decodedUser, decodedPassword)
        }
        // redis://password@host is a common shorthand (redis-cli -u accepts it): a password alone.
        guard let decoded = percentDecoded(userinfo) else {
            throw fail("bad percent-encoding in the password")
        }
        return (nil, decoded)
    }

    /// `host[:port]` or `[IPv6][:port]`; the port 6379 when absent.
    private static func hostAndPort(
        _ rest: Substring, fail: (String) -> RedisError
    ) throws(RedisError) -> (host: String, port: Int) {
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw fail("an IPv6 address needs its closing ]") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else {
                    throw fail("unexpected \"\(after.prefix(20))\" after the IPv6 address")
                }
                portText = after.dropFirst()
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        guard !host.isEmpty else { throw fail("the host is missing") }
        guard !host.contains(where: { $0 == " " || $0 == "/" || $0 == "@" }) else {
            throw fail("the host \"\(host.prefix(40))\" is not a host name")
        }
        var port = 6379
        if let portText {
            guard let number = Int(portText), (1...65535).contains(number) else {
                throw fail("the port \"\(portText.prefix(20))\" is not a number from 1 to 65535")
            }
            port = number
        }
        return (String(host), port)
    }

    /// `text` with the password part of its userinfo replaced by `***`.
    static func redacting(_ text: String) -> String {
        let marker = "://"
        var schemeEnd: String.Index?
        var index = text.startIndex
        while index < text.endIndex {
            if text[index...].hasPrefix(marker) {
                schemeEnd = text.index(index, offsetBy: marker.count)
                break
            }
            index = text.index(after: index)
        }
        guard let schemeEnd, let at = text[schemeEnd...].lastIndex(of: "@") else { return text }
        let userinfo = text[schemeEnd..<at]
        let user: String = userinfo.firstIndex(of: ":").map { String(userinfo[..<$0]) + ":" } ?? ""
        let head = String(text[..<schemeEnd])
        let tail = String(text[at...])
        return head + user + "***" + tail
    }

    private static func percentDecoded(_ text: Substring) -> String? {
        guard text.contains("%") else { return String(text) }
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next(), let low = iterator.next(),
                    let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
                else { return nil }
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

extension RedisURL: CustomStringConvertible {
    /// The URL with the password shown as `***`.
    public var description: String {
        var text = "redis://"
        if password != nil { text += (username ?? "") + ":***@" }
        text += host.contains(":") ? "[\(host)]" : host
        text += ":\(port)"
        if database != 0 { text += "/\(database)" }
        return text
    }
}
