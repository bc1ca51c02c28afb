/// The falsifiability table: for the cases of the catalogue, a deviation that makes each fail, reproduced by
/// `DeviationTableTests` (Tests/PushtopConformanceTests) against a real in-process server.
public enum CaseDeviations {
    /// The test that runs every row.
    static let table = "DeviationTableTests/eachDeviationFailsExactlyItsCases"

    /// The deviations that fail `id`.
    public static func failing(_ id: String) -> [CaseDeviation] { all.filter { $0.fails.contains(id) } }

    public static let all: [CaseDeviation] =
        connection + publicChannels + privateChannels + presence + clientEvents
        + api + features + webhooks + cluster + robustness

    static let connection: [CaseDeviation] = [
        CaseDeviation(
            "no-connection-established", "Never sends pusher:connection_established.",
            fails: ["connection.established", "connection.established-data-is-a-json-string"],
            runs: ["connection.established"]),
        CaseDeviation(
            "established-data-object", "Sends connection_established's data as a JSON object, not a string.",
            fails: ["connection.established-data-is-a-json-string"]),
        CaseDeviation(
            "socket-id-not-numeric", "Gives socket ids like `socket-17` instead of NUMBER.NUMBER.",
            fails: ["connection.socket-id-format"]),
        CaseDeviation(
            "no-activity-timeout", "Leaves activity_timeout out of connection_established.",
            fails: ["connection.activity-timeout"]),
        CaseDeviation(
            "one-socket-id", "Gives every connection the same socket_id.", fails: ["connection.distinct-socket-ids"]),
        CaseDeviation(
            "refuses-pusher-js-query", "Refuses the upgrade when the query names client=js.",
            fails: ["connection.pusher-js-query-accepted"]),
        CaseDeviation(
            "any-key-accepted", "Connects an unknown app key as if it were the app's.",
            fails: ["connection.unknown-key-4001"]),
        CaseDeviation(
            "any-protocol-accepted", "Treats a protocol that is not a number, or none, as protocol 7.",
            fails: ["connection.bad-version-4006", "connection.no-protocol-4008"]),
        CaseDeviation(
            "protocol-99-accepted", "Accepts protocol=99 as protocol 7.",
            fails: ["connection.unsupported-protocol-4007"]),
        CaseDeviation(
            "any-path-accepted", "Any WebSocket path is a Pusher connection (bun-pulse before PR #18).",
            fails: ["connection.other-paths-refused"]),
        CaseDeviation(
            "no-pusher-pong", "Never answers pusher:ping.",
            fails: ["connection.pusher-ping-answered", "connection.unknown-event-tolerated"],
            runs: ["connection.pusher-ping-answered", "connection.unknown-event-tolerated"]),
        CaseDeviation(
            "never-pings", "Never pings an idle client (activity_timeout 2 s, run with --long).",
            fails: ["connection.server-pings-idle-client"], runs: ["connection.server-pings-idle-client"]),
        CaseDeviation(
            "unanswered-pings-tolerated",
            "Never closes a client that leaves its pusher:ping unanswered (activity_timeout 2 s, run with --long).",
            fails: ["connection.unanswered-ping-closed"], runs: ["connection.unanswered-ping-closed"]),
        CaseDeviation(
            "refusal-then-dropped",
            "Drops the TCP connection where it should send a close frame (after a refusal's pusher:error, too).",
            fails: ["connection.refusals-close-with-their-code", "connection.client-close-answered"]),
        CaseDeviation(
            "no-pong-frames", "Never answers a WebSocket ping frame (its pong frames dropped on the wire).",
            fails: ["connection.websocket-ping-answered"]),
        CaseDeviation(
            "no-close-reply", "Ends the TCP connection without answering a client's close frame.",
            fails: ["connection.client-close-answered", "connection.refusals-close-with-their-code"]),
        CaseDeviation(
            "unknown-event-closes", "Closes the connection (4200) on an event it does not know.",
            fails: ["connection.unknown-event-tolerated"]),
    ]

    static let publicChannels: [CaseDeviation] = [
        CaseDeviation(
            "no-subscription-succeeded", "Answers pusher:subscribe with pusher:subscription_succeeded (protocol 6).",
            fails: ["public.subscribe"], runs: ["public.subscribe"]),
        CaseDeviation(
            "drop-api-events", "Events published through the HTTP API never reach subscribers (sockudo #298).",
            fails: [
                "public.event-delivered", "public.event-data-json-verbatim", "public.event-data-text-verbatim",
                "public.event-data-unicode", "public.event-name-kept", "public.unsubscribe-stops-delivery",
                "public.resubscribe", "public.duplicate-subscribe-delivers-once",
                "public.several-channels-one-connection", "public.fan-out", "public.not-to-others",
                "public.order-kept", "public.name-punctuation-accepted",
            ]),
        CaseDeviation(
            "data-json-reencoded", "Re-encodes JSON data (spacing and key order lost).",
            fails: ["public.event-data-json-verbatim"]),
        CaseDeviation(
            "text-data-quoted", "Delivers data that is not JSON as a JSON string literal.",
            fails: ["public.event-data-text-verbatim"]),
        CaseDeviation(
            "unicode-escaped", "Escapes non-ASCII characters in data as \\u sequences.",
            fails: ["public.event-data-unicode"]),
        CaseDeviation(
            "event-name-cut-at-colon", "Cuts event names at their last colon.", fails: ["public.event-name-kept"]),
        CaseDeviation(
            "unsubscribe-ignored", "Ignores pusher:unsubscribe.",
            fails: ["public.unsubscribe-stops-delivery", "public.resubscribe"]),
        CaseDeviation(
            "resubscribe-ignored", "Ignores a subscription to a channel the connection left before.",
            fails: ["public.resubscribe"]),
        CaseDeviation(
            "duplicate-subscribe-doubles", "A second pusher:subscribe to a channel doubles its events.",
            fails: ["public.duplicate-subscribe-delivers-once"]),
        CaseDeviation(
            "four-channels-per-connection", "Delivers events on the first four channels of a connection only.",
            fails: ["public.several-channels-one-connection"]),
        CaseDeviation(
            "fan-out-to-three", "Delivers an event to the first three subscribers of a channel only.",
            fails: ["public.fan-out"]),
        CaseDeviation(
            "events-to-everyone", "Delivers a channel's events to connections that did not subscribe to it.",
            fails: ["public.not-to-others"]),
        CaseDeviation(
            "even-events-late", "Holds back events whose data is an even number for 50 ms (out of order).",
            fails: ["public.order-kept"]),
        CaseDeviation(
            "invalid-names-accepted", "Accepts channel names with characters Pusher does not allow.",
            fails: ["public.invalid-name-refused"]),
        CaseDeviation(
            "long-names-accepted", "Accepts channel names over 164 characters.", fails: ["public.name-over-164-refused"]
        ),
        CaseDeviation(
            "names-capped-at-163", "Refuses channel names of 164 characters.", fails: ["public.name-of-164-accepted"]),
        CaseDeviation(
            "punctuation-refused", "Refuses channel names with `;` or `@`.", fails: ["public.name-punctuation-accepted"]
        ),
        CaseDeviation(
            "unsubscribe-unknown-closes", "Closes the connection on pusher:unsubscribe for a channel never subscribed.",
            fails: ["public.unsubscribe-unknown-harmless"]),
        CaseDeviation(
            "subscribe-without-channel-ignored", "Ignores a pusher:subscribe without a channel (no pusher:error).",
            fails: ["public.subscribe-without-channel-answered"]),
    ]

    static let privateChannels: [CaseDeviation] = [
        CaseDeviation(
            "private-refused", "Refuses every private- subscription, signed or not.",
            fails: ["private.subscribe", "private.events-delivered"],
            runs: ["private.subscribe", "private.events-delivered"]),
        CaseDeviation(
            "drop-private-events", "Never delivers events on private- channels.", fails: ["private.events-delivered"]),
        CaseDeviation(
            "private-without-auth-accepted", "Subscribes a private- channel given without auth.",
            fails: ["private.refused-without-auth"]),
        CaseDeviation(
            "signature-not-verified", "Accepts any key:64-hex-digit auth without checking the HMAC.",
            fails: [
                "private.refused-bad-signature", "private.refused-other-socket", "private.refused-other-channel",
                "private.refused-wrong-secret",
            ]),
        CaseDeviation(
            "auth-key-not-checked", "Checks an auth's signature but not the app key before it.",
            fails: ["private.refused-other-key"]),
        CaseDeviation(
            "malformed-auth-accepted", "Subscribes when the auth is not key:signature.",
            fails: ["private.refused-malformed-auth"]),
        CaseDeviation(
            "refusal-closes", "Closes the connection (4009) after refusing a subscription.",
            fails: ["private.refusal-keeps-connection"], runs: ["private.refusal-keeps-connection"]),
    ]

    static let presence: [CaseDeviation] = [
        CaseDeviation(
            "presence-refused", "Refuses every presence- subscription.", fails: ["presence.subscribe"],
            runs: ["presence.subscribe"]),
        CaseDeviation(
            "roster-without-hash", "Leaves hash out of the presence roster.",
            fails: [
                "presence.succeeded-roster-shape", "presence.roster-includes-subscriber",
                "presence.roster-lists-members",
                "presence.user-info-verbatim",
            ]),
        CaseDeviation(
            "roster-without-self", "Leaves the subscriber out of the ids of its own roster.",
            fails: ["presence.roster-includes-subscriber"]),
        CaseDeviation(
            "roster-only-self", "Lists only the subscriber in the roster.", fails: ["presence.roster-lists-members"]),
        CaseDeviation(
            "user-info-numbers-as-strings", "Turns numbers in user_info into strings.",
            fails: ["presence.user-info-verbatim"]),
        CaseDeviation(
            "presence-without-auth-accepted", "Subscribes a presence- channel given without auth.",
            fails: ["presence.refused-without-auth"]),
        CaseDeviation(
            "channel-data-defaulted", "Subscribes a presence channel without channel_data as an anonymous user.",
            fails: ["presence.refused-without-channel-data"]),
        CaseDeviation(
            "channel-data-unbound", "Does not sign channel_data: an auth for socket_id:channel is enough (bun-pulse).",
            fails: ["presence.channel-data-bound-to-signature"]),
        CaseDeviation(
            "channel-data-not-json-wrapped", "Takes channel_data that is not JSON as the user id.",
            fails: ["presence.refused-channel-data-not-json"]),
        CaseDeviation(
            "user-id-defaulted", "Gives channel_data without user_id a user id of its own.",
            fails: ["presence.refused-without-user-id"]),
        CaseDeviation(
            "no-member-added", "Never sends member_added.",
            fails: [
                "presence.member-added", "presence.rejoin-announced", "presence.member-added-once-per-user",
                "presence.user-info-verbatim",
            ]),
        CaseDeviation(
            "member-added-to-self", "Sends the joining connection member_added for itself.",
            fails: ["presence.member-added-not-to-self", "presence.member-added", "presence.user-info-verbatim"]),
        CaseDeviation(
            "no-member-removed-on-unsubscribe", "Sends no member_removed when a member unsubscribes.",
            fails: [
                "presence.member-removed-on-unsubscribe", "presence.member-removed-once-per-user",
                "presence.rejoin-announced",
            ]),
        CaseDeviation(
            "no-member-removed-on-disconnect", "Sends no member_removed when a member's connection drops.",
            fails: ["presence.member-removed-on-disconnect"]),
        CaseDeviation(
            "member-events-per-connection", "Sends member_added for every connection of a user (Reverb before #216).",
            fails: ["presence.member-added-once-per-user"]),
        CaseDeviation(
            "member-removed-per-connection", "Sends member_removed when any connection of a user leaves.",
            fails: ["presence.member-removed-once-per-user"]),
        CaseDeviation(
            "roster-counts-connections", "Counts connections, not users, in the roster.",
            fails: ["presence.count-counts-users"]),
        CaseDeviation(
            "rejoin-not-announced", "Never announces a user again after it left.", fails: ["presence.rejoin-announced"]),
        CaseDeviation(
            "drop-presence-events", "Never delivers events on presence- channels.",
            fails: ["presence.events-delivered"]),
        CaseDeviation(
            "user-info-limit-4kb", "Allows user_info up to 4 KB.", fails: ["presence.user-info-over-1kb-refused"]),
        CaseDeviation(
            "user-id-limit-1000", "Allows user ids up to 1,000 characters.",
            fails: ["presence.user-id-over-128-refused"]),
        CaseDeviation(
            "member-limit-200", "Allows 200 members on a presence channel (with --destructive).",
            fails: ["presence.member-limit-100"], runs: ["presence.member-limit-100"]),
    ]

    static let clientEvents: [CaseDeviation] = [
        CaseDeviation(
            "drop-client-events", "Never delivers client events on private- channels.",
            fails: ["client-events.delivered-on-private", "client-events.data-verbatim", "client-events.not-echoed"]),
        CaseDeviation(
            "client-data-numbers-as-strings", "Turns numbers in a client event's data into strings.",
            fails: ["client-events.data-verbatim"]),
        CaseDeviation(
            "client-events-echoed", "Sends a client event back to its sender.", fails: ["client-events.not-echoed"]),
        CaseDeviation(
            "client-events-without-user-id", "Leaves user_id out of client events on presence channels.",
            fails: ["client-events.presence-user-id"]),
        CaseDeviation(
            "client-events-on-public", "Delivers client events on public channels.",
            fails: ["client-events.refused-on-public"]),
        CaseDeviation(
            "any-event-name-from-clients", "Delivers events from clients whatever their name.",
            fails: ["client-events.need-client-prefix"]),
        CaseDeviation(
            "client-events-without-subscription",
            "Delivers a client event on a channel its sender did not subscribe to.",
            fails: ["client-events.need-subscription"]),
        CaseDeviation(
            "client-events-to-everyone", "Delivers client events to every connection, whatever its channels.",
            fails: ["client-events.not-to-other-channels"]),
        CaseDeviation(
            "client-events-unlimited", "Allows 1,000 client events a second.", fails: ["client-events.rate-limit-4301"]),
        CaseDeviation(
            "client-events-20kb", "Allows client event data up to 20 KB.", fails: ["client-events.over-10kb-refused"]),
    ]

    static let api: [CaseDeviation] = [
        CaseDeviation(
            "trigger-answers-text", "Answers POST /events (without info) with the text OK.",
            fails: ["api.trigger-answers-json"]),
        CaseDeviation(
            "channels-answer-text", "Answers GET /channels (without a filter) with text.",
            fails: ["api.answers-are-json"]),
        CaseDeviation(
            "trigger-first-channel-only", "Publishes an event with several channels on the first one only.",
            fails: ["api.trigger-several-channels"]),
        CaseDeviation(
            "channels-per-trigger-99", "Allows 99 channels in one trigger.",
            fails: ["api.trigger-100-channels-accepted"]),
        CaseDeviation(
            "channels-per-trigger-200", "Allows 200 channels in one trigger.",
            fails: ["api.trigger-101-channels-refused"]),
        CaseDeviation(
            "data-limit-10000", "Allows event data up to 10,000 bytes.", fails: ["api.data-10kb-accepted"]),
        CaseDeviation(
            "data-limit-30kb", "Allows event data up to 30 KB.", fails: ["api.data-over-10kb-413"]),
        CaseDeviation(
            "event-names-300", "Allows event names up to 300 characters.", fails: ["api.event-name-over-200-refused"]),
        CaseDeviation(
            "missing-name-defaulted", "Publishes an event without a name as `event`.",
            fails: ["api.missing-name-refused"]),
        CaseDeviation(
            "missing-channels-accepted", "Answers 200 to an event without channels.",
            fails: ["api.missing-channels-refused"]),
        CaseDeviation(
            "invalid-json-accepted", "Answers 200 to a body that is not JSON.", fails: ["api.invalid-json-refused"]),
        CaseDeviation(
            "invalid-channels-skipped", "Skips invalid channel names in a trigger and answers 200.",
            fails: ["api.invalid-channel-refused"]),
        CaseDeviation(
            "socket-id-ignored", "Ignores socket_id: the excluded connection receives the event.",
            fails: ["api.socket-id-excluded", "api.batch-socket-id-excluded"]),
        CaseDeviation(
            "invalid-socket-id-ignored", "Ignores a socket_id that is not NUMBER.NUMBER.",
            fails: ["api.socket-id-invalid-refused"]),
        CaseDeviation(
            "trigger-info-ignored", "Answers {} to a trigger that asks for info.",
            fails: ["api.info-subscription-count", "api.info-user-count"]),
        CaseDeviation(
            "batch-reversed", "Delivers the events of one batch_events request in reverse order.",
            fails: ["api.batch-order-kept"]),
        CaseDeviation(
            "reach-first-100", "Delivers an event to the first 100 subscribers of a channel only (with --destructive).",
            fails: ["api.event-reaches-300-subscribers"],
            runs: ["api.event-reaches-300-subscribers", "api.batch-order-kept"]),
        CaseDeviation(
            "keeps-disconnected-subscribers",
            "Keeps a connection subscribed after its client closed it or dropped its TCP connection.",
            fails: [
                "api.channels-drops-on-close", "api.channels-drops-on-drop", "api.channel-unoccupied-on-close",
                "api.channel-unoccupied-on-drop", "webhooks.vacated-on-close", "webhooks.vacated-on-drop",
                "webhooks.member-removed-on-close", "webhooks.member-removed-on-drop",
            ]),
        CaseDeviation(
            "batch-first-event-only", "Publishes only the first event of a batch.",
            fails: ["api.batch-delivers", "api.batch-order-kept"]),
        CaseDeviation(
            "batch-limit-9", "Allows 9 events in a batch.", fails: ["api.batch-10-accepted", "api.batch-order-kept"]),
        CaseDeviation("batch-limit-20", "Allows 20 events in a batch.", fails: ["api.batch-11-refused"]),
        CaseDeviation(
            "batch-info-ignored", "Answers {} to a batch that asks for info.", fails: ["api.batch-info"]),
        CaseDeviation(
            "unsigned-posts-accepted", "Accepts a POST without a signature.", fails: ["api.unsigned-401"]),
        CaseDeviation(
            "unsigned-gets-accepted", "Accepts a GET without a signature.", fails: ["api.get-unsigned-401"]),
        CaseDeviation(
            "api-signature-not-verified", "Accepts a request whatever its auth_signature.",
            fails: ["api.bad-signature-401", "api.wrong-secret-401"]),
        CaseDeviation(
            "api-key-not-checked", "Accepts a request whatever its auth_key.", fails: ["api.wrong-key-401"]),
        CaseDeviation(
            "body-md5-not-checked", "Accepts a request whose body_md5 is not the body's.",
            fails: ["api.body-md5-mismatch-401"]),
        CaseDeviation(
            "stale-timestamps-accepted", "Accepts an auth_timestamp 700 seconds old.",
            fails: ["api.stale-timestamp-401"]),
        CaseDeviation(
            "future-timestamps-accepted", "Accepts an auth_timestamp 700 seconds ahead.",
            fails: ["api.future-timestamp-401"]),
        CaseDeviation(
            "timestamp-window-100s", "Refuses an auth_timestamp more than 100 seconds old.",
            fails: ["api.timestamp-in-window-accepted"]),
        CaseDeviation(
            "any-app-id-accepted", "Serves an unknown app id as the app.", fails: ["api.unknown-app-refused"]),
        CaseDeviation(
            "channels-list-empty", "Answers GET /channels with no channels.",
            fails: ["api.channels-lists-occupied", "api.channels-user-count", "api.channels-filter-by-prefix"]),
        CaseDeviation(
            "vacated-channels-listed", "Keeps a channel in GET /channels after it was vacated.",
            fails: ["api.channels-drops-vacated", "api.channels-drops-on-close", "api.channels-drops-on-drop"]),
        CaseDeviation(
            "prefix-filter-ignored", "Ignores filter_by_prefix.", fails: ["api.channels-filter-by-prefix"]),
        CaseDeviation(
            "user-count-without-presence-prefix", "Answers info=user_count without filter_by_prefix=presence-.",
            fails: ["api.channels-user-count-needs-presence-prefix"]),
        CaseDeviation(
            "channel-never-occupied", "Says occupied: false for every channel.", fails: ["api.channel-occupied"]),
        CaseDeviation(
            "channel-always-occupied", "Says occupied: true for every channel.",
            fails: ["api.channel-unoccupied", "api.channel-unoccupied-on-close", "api.channel-unoccupied-on-drop"]),
        CaseDeviation(
            "subscription-count-plus-one", "Counts one subscription too many in GET /channels/NAME.",
            fails: ["api.channel-subscription-count", "api.channel-user-count-deduplicated"]),
        CaseDeviation(
            "user-count-counts-connections", "Gives user_count as the number of connections.",
            fails: ["api.channel-user-count-deduplicated"]),
        CaseDeviation(
            "user-count-on-public", "Answers info=user_count on a public channel.",
            fails: ["api.channel-user-count-on-public-refused"]),
        CaseDeviation(
            "users-listed-twice", "Lists every user twice in GET /channels/NAME/users.",
            fails: ["api.users-lists-members"]),
        CaseDeviation(
            "users-of-public", "Answers GET …/users for a channel that is not presence.",
            fails: ["api.users-on-public-refused"]),
    ]

    static let features: [CaseDeviation] = [
        CaseDeviation(
            "encrypted-unanswered", "Never answers a signed private-encrypted- subscription.",
            fails: ["encrypted.subscribe"]),
        CaseDeviation(
            "encrypted-without-auth-accepted", "Subscribes private-encrypted- channels whatever the auth.",
            fails: ["encrypted.refused-without-auth"]),
        CaseDeviation(
            "ciphertext-altered", "Changes a character of the ciphertext of encrypted events.",
            fails: ["encrypted.ciphertext-relayed"]),
        CaseDeviation(
            "encrypted-client-events", "Delivers client events on private-encrypted- channels.",
            fails: ["encrypted.client-events-refused"]),
        CaseDeviation(
            "signin-user-data-dropped", "Sends pusher:signin_success without the user_data.",
            fails: ["signin.succeeds"]),
        CaseDeviation(
            "signin-signature-not-verified", "Signs in whatever the signature.",
            fails: ["signin.refused-bad-signature", "signin.user-data-bound"]),
        CaseDeviation(
            "signin-id-defaulted", "Signs in user_data without an id under an id of its own.",
            fails: ["signin.user-data-needs-id"]),
        CaseDeviation(
            "drop-user-events", "Answers 200 to events for users but never delivers them.",
            fails: ["server-to-user.delivered", "server-to-user.every-connection", "server-to-user.not-to-others"]),
        CaseDeviation(
            "user-events-first-connection", "Delivers an event for a user to its first connection only.",
            fails: ["server-to-user.every-connection"]),
        CaseDeviation(
            "user-events-to-everyone", "Delivers an event for a user to every signed-in connection.",
            fails: ["server-to-user.not-to-others"]),
        CaseDeviation(
            "user-channels-open", "Lets anyone subscribe to another user's #server-to-user- channel.",
            fails: ["server-to-user.others-cannot-subscribe"]),
        CaseDeviation(
            "watchlist-no-online", "Never says online after sign-in.", fails: ["watchlist.online"]),
        CaseDeviation(
            "watchlist-no-offline", "Never says offline.", fails: ["watchlist.offline"]),
        CaseDeviation(
            "watchlist-no-initial-state", "Says nothing about the watched users at sign-in.",
            fails: ["watchlist.initial-state"]),
        CaseDeviation(
            "terminate-does-nothing", "Answers 200 to terminate_connections and closes nothing.",
            fails: ["terminate.closes-user-connections"]),
        CaseDeviation(
            "terminate-closes-everyone", "Closes every connection of the app on terminate_connections.",
            fails: ["terminate.others-unaffected"], runs: ["terminate.others-unaffected"]),
        CaseDeviation(
            "no-cache-miss", "Replays cached events but never sends pusher:cache_miss.", fails: ["cache.miss-on-empty"]),
        CaseDeviation(
            "cache-not-replayed", "Sends pusher:cache_miss but never replays a cache- channel's last event.",
            fails: ["cache.last-event-replayed", "cache.no-miss-when-cached"]),
        CaseDeviation(
            "cache-miss-always", "Sends pusher:cache_miss even when an event is cached.",
            fails: ["cache.no-miss-when-cached"]),
        CaseDeviation(
            "private-cache-open", "Subscribes private-cache- channels whatever the auth.",
            fails: ["cache.private-replayed"]),
        CaseDeviation(
            "presence-cache-not-replayed", "Never replays a presence-cache- channel's last event.",
            fails: ["cache.presence-replayed"]),
        CaseDeviation(
            "subscription-count-zero-based", "Sends subscription_count one too low.",
            fails: [
                "subscription-count.on-subscribe", "subscription-count.updates", "subscription-count.agrees-with-api",
            ]),
        CaseDeviation(
            "subscription-count-once", "Sends subscription_count on subscribing only, never an update.",
            fails: ["subscription-count.updates", "subscription-count.agrees-with-api"]),
        CaseDeviation(
            "subscription-count-on-presence", "Sends subscription_count on presence channels too.",
            fails: ["subscription-count.not-on-presence"]),
        CaseDeviation(
            "subscription-count-camel-case",
            "Sends the count as subscriptionCount, and GET /channels/NAME without subscription_count.",
            fails: [
                "subscription-count.on-subscribe", "subscription-count.updates", "subscription-count.agrees-with-api",
            ]),
        CaseDeviation(
            "api-without-subscription-count", "Leaves subscription_count out of GET /channels/NAME.",
            fails: ["subscription-count.agrees-with-api"]),
    ]

    static let webhooks: [CaseDeviation] = [
        CaseDeviation(
            "webhooks-unwrapped", "Posts each webhook event on its own, not in {time_ms, events} (soketi #137).",
            fails: ["webhooks.wrapped-in-events"]),
        CaseDeviation(
            "webhooks-badly-signed", "Signs webhooks with another secret.", fails: ["webhooks.signed"]),
        CaseDeviation(
            "webhooks-as-text", "Posts webhooks as text/plain.", fails: ["webhooks.json-content-type"]),
        CaseDeviation(
            "no-channel-occupied", "Never sends channel_occupied.",
            fails: [
                "webhooks.channel-occupied", "webhooks.wrapped-in-events", "webhooks.signed",
                "webhooks.json-content-type",
                "webhooks.occupied-once", "webhooks.vacated-cancelled-on-quick-return",
            ]),
        CaseDeviation(
            "no-channel-vacated", "Never sends channel_vacated.",
            fails: [
                "webhooks.channel-vacated", "webhooks.vacated-only-when-empty", "webhooks.vacated-on-close",
                "webhooks.vacated-on-drop",
            ]),
        CaseDeviation(
            "webhooks-twice", "Posts every webhook twice (soketi PR #438).",
            fails: [
                "webhooks.occupied-once", "webhooks.member-added-once-per-user",
                "webhooks.vacated-cancelled-on-quick-return", "webhooks.member-removed-cancelled-on-quick-return",
            ]),
        CaseDeviation(
            "no-member-added-webhook", "Never sends member_added webhooks.",
            fails: [
                "webhooks.member-added", "webhooks.member-added-once-per-user",
                "webhooks.member-removed-cancelled-on-quick-return", "webhooks.member-removed-on-close",
                "webhooks.member-removed-on-drop",
            ]),
        CaseDeviation(
            "no-member-removed-webhook", "Never sends member_removed webhooks.",
            fails: ["webhooks.member-removed", "webhooks.member-removed-on-close", "webhooks.member-removed-on-drop"]),
        CaseDeviation(
            "member-added-webhook-doubled", "Sends each member_added webhook event twice.",
            fails: ["webhooks.member-added-once-per-user", "webhooks.member-removed-cancelled-on-quick-return"]),
        CaseDeviation(
            "no-webhook-grace", "Sends channel_vacated and member_removed at once (serve --webhook-grace 0).",
            fails: ["webhooks.vacated-cancelled-on-quick-return", "webhooks.member-removed-cancelled-on-quick-return"]
        ),
        CaseDeviation(
            "client-event-data-object", "Sends client_event data as a JSON object, not a string.",
            fails: ["webhooks.client-event"]),
        CaseDeviation("no-cache-miss-webhook", "Never sends cache_miss webhooks.", fails: ["webhooks.cache-miss"]),
        CaseDeviation(
            "webhooks-not-retried", "Posts a webhook once, whatever the answer (run with --long).",
            fails: ["webhooks.retried"], runs: ["webhooks.retried"]),
    ]

    static let cluster: [CaseDeviation] = [
        CaseDeviation(
            "nodes-not-clustered", "Two nodes that share nothing: each one serves only its own connections.",
            fails: [
                "cluster.publish-anywhere", "cluster.one-roster", "cluster.member-added-across",
                "cluster.member-removed-across", "cluster.counts-from-any-node", "cluster.users-from-any-node",
                "cluster.channels-from-any-node", "cluster.client-event-across", "cluster.server-to-user-across",
                "cluster.socket-id-excluded-across", "cluster.member-once-per-user-across",
            ]),
        CaseDeviation(
            "roster-local-only", "Node B's rosters list only the members connected to node B.",
            fails: ["cluster.one-roster"]),
        CaseDeviation(
            "member-events-local-only", "Node B announces only members who join or leave on node B.",
            fails: ["cluster.member-added-across", "cluster.member-removed-across"]),
        CaseDeviation(
            "counts-local-only", "Node B's API counts only node B's subscribers.",
            fails: ["cluster.counts-from-any-node"]),
        CaseDeviation(
            "users-local-only", "Node B's API lists only the users connected to node B.",
            fails: ["cluster.users-from-any-node"]),
        CaseDeviation(
            "channels-local-only", "Node B's GET /channels lists only the channels occupied on node B.",
            fails: ["cluster.channels-from-any-node"]),
        CaseDeviation(
            "client-events-local-only", "Node B delivers no client event sent on another node.",
            fails: ["cluster.client-event-across"]),
        CaseDeviation(
            "publish-local-only", "Node B publishes only to the channels its own connections are on.",
            fails: [
                "cluster.publish-anywhere", "cluster.socket-id-excluded-across", "cluster.server-to-user-across",
                "cluster.member-once-per-user-across",
            ]),
        CaseDeviation(
            "late-duplicate-member-added", "Announces a member a second time 1.5 s later.",
            fails: ["cluster.member-once-per-user-across"]),
        CaseDeviation(
            "socket-id-ignored-across", "Ignores socket_id on publishes (two nodes).",
            fails: ["cluster.socket-id-excluded-across"]),
        CaseDeviation(
            "webhooks-per-node", "Each node posts its own channel_occupied.", fails: ["cluster.webhook-once"]),
    ]

    static let robustness: [CaseDeviation] = [
        CaseDeviation(
            "binary-frame-stops", "Stops serving on a binary frame.", fails: ["robustness.binary-frame"],
            runs: ["robustness.binary-frame"]),
        CaseDeviation(
            "malformed-json-stops", "Stops serving on a text frame that is not JSON.",
            fails: ["robustness.malformed-json"], runs: ["robustness.malformed-json"]),
        CaseDeviation(
            "wrong-types-stop", "Stops serving on a frame whose event is not a string.",
            fails: ["robustness.wrong-types"], runs: ["robustness.wrong-types"]),
        CaseDeviation(
            "invalid-utf8-stops", "Stops serving on a text frame that is not UTF-8.",
            fails: ["robustness.invalid-utf8"], runs: ["robustness.invalid-utf8"]),
        CaseDeviation(
            "oversized-stops", "Stops serving on a message over 1 MB.", fails: ["robustness.oversized-message"],
            runs: ["robustness.oversized-message"]),
        CaseDeviation(
            "deep-nesting-stops", "Stops serving on JSON nested over 1,000 levels.",
            fails: ["robustness.deep-nesting"], runs: ["robustness.deep-nesting"]),
        CaseDeviation(
            "ping-flood-stops", "Stops serving after 100 pusher:ping from one connection.",
            fails: ["robustness.ping-flood"], runs: ["robustness.ping-flood"]),
        CaseDeviation(
            "abrupt-drop-stops", "Stops serving when a connection drops with a subscription unanswered.",
            fails: ["robustness.abrupt-drop"], runs: ["robustness.abrupt-drop"]),
        CaseDeviation(
            "fragments-lost", "Loses the continuation frames of a fragmented message.",
            fails: ["robustness.fragmented-message"]),
    ]
}
