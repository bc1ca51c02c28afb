import Foundation
import PusherProtocol
import PushtopConformance
import PushtopServer

extension DeviationSetups {
    typealias A = Rewrites

    static func body(_ r: ProxiedRequest) -> JSONValue? { JSONValue.parseIfJSON(r.body) }

    static func md5Right(_ r: ProxiedRequest) -> Bool {
        r.body.isEmpty || r.query["body_md5"] == APIRequestSignature.bodyMD5(Array(r.body.utf8))
    }

    static func stamp(_ r: ProxiedRequest) -> Double { r.query["auth_timestamp"].flatMap(Double.init) ?? A.now() }

    /// Changes the JSON body of the requests that `applies`; they are signed anew.
    static func requestBody(
        _ applies: @escaping @Sendable (ProxiedRequest) -> Bool,
        _ f: @escaping @Sendable (inout [String: JSONValue]) -> Void
    )
        -> DeviationSetup
    {
        rewrite(
            A.request { r, _ in
                guard applies(r), r.signedRight, abs(stamp(r) - A.now()) < 600, case .object(var fields)? = body(r)
                else { return false }
                f(&fields)
                r.body = JSONValue.object(fields).jsonString
                return true
            })
    }

    /// Answers with `status` and `text` the requests that `applies` (after the server answered them).
    static func answerWith(
        _ status: Int, _ text: String, when applies: @escaping @Sendable (ProxiedRequest, Int) -> Bool
    )
        -> DeviationSetup
    {
        rewrite(A.answer { r, got, _, _ in applies(r, got) ? (status, text) : nil })
    }

    /// Rewrites the JSON answers of GET requests on `path`s that `applies`.
    static func answerJSON(
        _ applies: @escaping @Sendable (ProxiedRequest) -> Bool,
        _ f: @escaping @Sendable (inout [String: JSONValue]) -> Void
    )
        -> DeviationSetup
    {
        rewrite(
            A.answer { r, status, json, _ in
                guard status == 200, applies(r), case .object(var fields)? = json else { return nil }
                f(&fields)
                return (200, JSONValue.object(fields).jsonString)
            })
    }

    static func isGetChannel(_ r: ProxiedRequest) -> Bool { r.method == "GET" && A.channelOf(r.path) != nil }
    static func isGetChannels(_ r: ProxiedRequest) -> Bool { r.method == "GET" && r.path.hasSuffix("/channels") }

    static func withoutSocketID(_ fields: inout [String: JSONValue]) {
        if let id = fields["socket_id"]?.stringValue, id.split(separator: ".").count == 2 { fields["socket_id"] = nil }
        if let batch = fields["batch"]?.arrayValue {
            fields["batch"] = .array(
                batch.map { item in
                    guard case .object(var o) = item else { return item }
                    withoutSocketID(&o)
                    return .object(o)
                })
        }
    }

    static let api: [String: DeviationSetup] = [
        "trigger-answers-text": answerWith(200, "OK") { r, status in
            A.isTrigger(r) && status == 200 && body(r)?["info"] == nil
        },
        "channels-answer-text": answerWith(200, "no channels") { r, status in
            isGetChannels(r) && status == 200 && r.query["info"] == nil && r.query["filter_by_prefix"] == nil
        },
        "trigger-first-channel-only": requestBody({ A.isTrigger($0) }) { fields in
            if let channels = fields["channels"]?.arrayValue, channels.count > 1, channels.count <= 10 {
                fields["channels"] = .array([channels[0]])
            }
        },
        "channels-per-trigger-99": limits { $0.maxChannelsPerTrigger = 99 },
        "channels-per-trigger-200": limits { $0.maxChannelsPerTrigger = 200 },
        "data-limit-10000": limits { $0.maxEventDataBytes = 10_000 },
        "data-limit-30kb": limits { $0.maxEventDataBytes = 30_000 },
        "event-names-300": limits { $0.maxEventNameLength = 300 },
        "missing-name-defaulted": requestBody({ A.isTrigger($0) }) { fields in
            if fields["name"] == nil { fields["name"] = "event" }
        },
        "missing-channels-accepted": answerWith(200, "{}") { r, status in
            A.isTrigger(r) && status == 400 && body(r) != nil && body(r)?["channels"] == nil
                && body(r)?["channel"] == nil
        },
        "invalid-json-accepted": answerWith(200, "{}") { r, status in
            A.isTrigger(r) && status == 400 && body(r) == nil
        },
        "invalid-channels-skipped": answerWith(200, "{}") { r, status in
            A.isTrigger(r) && status == 400
                && (body(r)?["channels"]?.arrayValue ?? []).contains {
                    !validName($0.stringValue ?? "")
                }
        },
        "socket-id-ignored": requestBody({ $0.method == "POST" }) { withoutSocketID(&$0) },
        "invalid-socket-id-ignored": requestBody({ A.isTrigger($0) }) { fields in
            if let id = fields["socket_id"]?.stringValue, id.split(separator: ".").count != 2 {
                fields["socket_id"] = nil
            }
        },
        "trigger-info-ignored": answerWith(200, "{}") { r, status in
            A.isTrigger(r) && status == 200 && body(r)?["info"] != nil
        },
        "batch-first-event-only": requestBody({ A.isBatch($0) }) { fields in
            if let batch = fields["batch"]?.arrayValue, batch.count > 1, batch.count <= 10 {
                fields["batch"] = .array([batch[0]])
            }
        },
        "batch-reversed": requestBody({ A.isBatch($0) }) { fields in
            if let batch = fields["batch"]?.arrayValue { fields["batch"] = .array(batch.reversed()) }
        },
        "reach-first-100": fanOut(to: 100, destructive: true),
        "keeps-disconnected-subscribers": DeviationSetup(
            rewrite: {
                var r = ProxyRewrite()
                r.keepsDisconnected = true
                return r
            }(), webhooks: true),
        "batch-limit-9": limits { $0.maxEventsPerBatch = 9 },
        "batch-limit-20": limits { $0.maxEventsPerBatch = 20 },
        "batch-info-ignored": answerWith(200, "{}") { r, status in
            A.isBatch(r) && status == 200 && (body(r)?["batch"]?.arrayValue ?? []).contains { $0["info"] != nil }
        },
        "unsigned-posts-accepted": rewrite(
            A.request { r, _ in r.method == "POST" && r.query["auth_signature"] == nil }),
        "unsigned-gets-accepted": rewrite(
            A.request { r, _ in r.method == "GET" && r.query["auth_signature"] == nil }),
        "api-signature-not-verified": rewrite(
            A.request { r, _ in
                r.query["auth_key"] == A.key && r.query["auth_signature"] != nil && !r.signedRight && md5Right(r)
                    && abs(stamp(r) - A.now()) < 600
            }),
        "api-key-not-checked": rewrite(
            A.request { r, _ in r.query["auth_key"] != nil && r.query["auth_key"] != A.key }),
        "body-md5-not-checked": rewrite(A.request { r, _ in !md5Right(r) && r.query["auth_key"] == A.key }),
        "stale-timestamps-accepted": rewrite(A.request { r, _ in r.signedRight && stamp(r) < A.now() - 600 }),
        "future-timestamps-accepted": rewrite(A.request { r, _ in r.signedRight && stamp(r) > A.now() + 600 }),
        "timestamp-window-100s": answerWith(401, #"{"error":"auth_timestamp too old"}"#) { r, _ in
            stamp(r) < A.now() - 100
        },
        "any-app-id-accepted": rewrite(
            A.request { r, _ in
                let parts = r.path.split(separator: "/", omittingEmptySubsequences: false)
                guard parts.count > 2, parts[1] == "apps", parts[2] != Substring(A.appID) else { return false }
                r.path = (["", "apps", A.appID] + parts.dropFirst(3).map(String.init)).joined(separator: "/")
                return true
            }),
        "channels-list-empty": answerJSON({ isGetChannels($0) }) { $0["channels"] = .object([:]) },
        "vacated-channels-listed": DeviationSetup(
            rewrite: {
                var r = A.server { m, _, link in
                    if m.event == PusherEventName.subscriptionSucceeded, let channel = m.channel {
                        _ = link.hub.shared("listed") { $0 = ($0 ?? "") + "\n" + channel }
                    }
                    return nil
                }
                r.answer = { request, status, text, hub in
                    guard status == 200, isGetChannels(request), request.query["info"] == nil,
                        case .object(var fields)? = JSONValue.parseIfJSON(text),
                        case .object(var channels)? = fields["channels"]
                    else { return (status, text) }
                    let seen = hub.shared("listed") { value in
                        let old = (value ?? "").split(separator: "\n").map(String.init)
                        value = Array(Set(old + channels.keys)).sorted().joined(separator: "\n")
                    }
                    for name in (seen ?? "").split(separator: "\n").map(String.init)
                    where channels[name] == nil && name.hasPrefix(request.query["filter_by_prefix"] ?? "") {
                        channels[name] = .object([:])
                    }
                    fields["channels"] = .object(channels)
                    return (200, JSONValue.object(fields).jsonString)
                }
                return r
            }()),
        "prefix-filter-ignored": rewrite(
            A.request { r, _ in
                guard r.method == "GET", r.path.hasSuffix("/channels"), r.query["info"] == nil,
                    r.query["filter_by_prefix"] != nil
                else { return false }
                r.query["filter_by_prefix"] = nil
                return false
            }),
        "user-count-without-presence-prefix": answerWith(200, #"{"channels":{}}"#) { r, status in
            isGetChannels(r) && status == 400 && (r.query["info"] ?? "").contains("user_count")
        },
        "channel-never-occupied": answerJSON({ isGetChannel($0) }) { $0["occupied"] = false },
        "channel-always-occupied": answerJSON({ isGetChannel($0) }) { $0["occupied"] = true },
        "subscription-count-plus-one": answerJSON({ isGetChannel($0) }) { fields in
            if let n = fields["subscription_count"]?.intValue { fields["subscription_count"] = .number(Double(n + 1)) }
        },
        "user-count-counts-connections": answerJSON({ isGetChannel($0) }) { fields in
            if fields["user_count"] != nil, let n = fields["subscription_count"] { fields["user_count"] = n }
        },
        "user-count-on-public": answerWith(200, #"{"occupied":true,"user_count":1}"#) { r, status in
            isGetChannel(r) && status == 400 && !(A.channelOf(r.path) ?? "").hasPrefix("presence-")
        },
        "users-listed-twice": answerJSON({ $0.method == "GET" && $0.path.hasSuffix("/users") }) { fields in
            if let users = fields["users"]?.arrayValue { fields["users"] = .array(users + users) }
        },
        "users-of-public": answerWith(200, #"{"users":[]}"#) { r, status in
            r.method == "GET" && r.path.hasSuffix("/users") && status == 400
        },
    ]
}
