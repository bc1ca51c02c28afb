import Foundation
import NIOHTTP1

/// Which HTTP API endpoint a request target names: the first step of ``HTTPAPICore``.
///
/// `/apps/{app_id}/events`, `/batch_events`, `/channels`, `/channels/{name}`, `/channels/{name}/users`,
/// `/users/{user_id}/terminate_connections`, and `/users/{user_id}/terminate_connections` without the app (the
/// official Python SDK sends it there; the app is the one `auth_key` names). Path segments are percent-decoded.
/// Anything else (`/apps/{id}/console`, `/health`, …) is not the API's.
enum HTTPAPIRoute: Sendable, Equatable {
    case events
    case batchEvents
    case channels
    case channel(String)
    case channelUsers(String)
    case terminateConnections(userID: String)

    /// The method the endpoint takes.
    var method: HTTPMethod {
        switch self {
        case .events, .batchEvents, .terminateConnections: .POST
        case .channels, .channel, .channelUsers: .GET
        }
    }

    /// A request target's endpoint: the app id in its path (`nil` for the app-less terminate route) and the route;
    /// `nil` when the path is not the API's.
    static func match(path: String) -> (appID: String?, route: HTTPAPIRoute)? {
        var path = path
        return path.withUTF8 { bytes -> (String?, HTTPAPIRoute)? in
            guard bytes.first == UInt8(ascii: "/") else { return nil }
            // At most 5 segments, on the stack: no array per request.
            return withUnsafeTemporaryAllocation(of: UnsafeBufferPointer<UInt8>.self, capacity: 6) { storage in
                var count = 0
                var start = 1
                for index in 1...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: "/") {
                    guard index > start, count < 6 else { return nil }
                    storage[count] = UnsafeBufferPointer(rebasing: bytes[start..<index])
                    count += 1
                    start = index + 1
                }
                return route(UnsafeBufferPointer(rebasing: storage[..<count]))
            }
        }
    }

    /// The route of a path's segments (each non-empty, at most six).
    private static func route(_ segments: UnsafeBufferPointer<UnsafeBufferPointer<UInt8>>)
        -> (String?, HTTPAPIRoute)?
    {
        func text(_ segment: UnsafeBufferPointer<UInt8>) -> String { decoded(segment) }
        func equals(_ segment: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
            segment.elementsEqual(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
        }
        if segments.count == 3, equals(segments[0], "users"), equals(segments[2], "terminate_connections") {
            return (nil, .terminateConnections(userID: text(segments[1])))
        }
        guard segments.count >= 3, equals(segments[0], "apps") else { return nil }
        let appID = text(segments[1])
        switch segments.count {
        case 3 where equals(segments[2], "events"): return (appID, .events)
        case 3 where equals(segments[2], "batch_events"): return (appID, .batchEvents)
        case 3 where equals(segments[2], "channels"): return (appID, .channels)
        case 4 where equals(segments[2], "channels"): return (appID, .channel(text(segments[3])))
        case 5 where equals(segments[2], "channels") && equals(segments[4], "users"):
            return (appID, .channelUsers(text(segments[3])))
        case 5 where equals(segments[2], "users") && equals(segments[4], "terminate_connections"):
            return (appID, .terminateConnections(userID: text(segments[3])))
        default: return nil
        }
    }

    /// A path segment, percent-decoded when it has a `%` (kept as it is when it does not decode).
    private static func decoded(_ segment: UnsafeBufferPointer<UInt8>) -> String {
        let text = String(decoding: segment, as: UTF8.self)
        guard segment.contains(UInt8(ascii: "%")) else { return text }
        return text.removingPercentEncoding ?? text
    }
}
