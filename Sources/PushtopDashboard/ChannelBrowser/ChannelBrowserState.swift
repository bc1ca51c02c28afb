import PusherProtocol

/// What a key does in the channel browser.
public enum BrowserAction: Sendable, Hashable {
    case up, down, top, bottom, pageUp, pageDown
    /// Subscribe to the selected channel.
    case subscribe
    /// Next sort order.
    case sort
    case filter
    /// Fetch now.
    case refresh
    case close
}

/// The channel browser's slice: the app's occupied channels from the HTTP API, refreshed every few seconds
/// while open, sorted and filtered, with a selection.
public struct ChannelBrowserState: Sendable {
    public enum Sort: String, Sendable, Hashable, CaseIterable {
        case name, subscribers, users
    }

    public enum Outcome: Sendable, Hashable {
        case none, leave, promptFilter, fetch
        case subscribe(String)
    }

    /// Seconds between two fetches while the browser is open.
    public static let refreshInterval = 3.0

    public internal(set) var channels: [OccupiedChannel] = []
    public internal(set) var fetchedAt: Double?
    public internal(set) var error: String?
    public internal(set) var inFlight = false
    public internal(set) var requestedAt = -Double.infinity
    public internal(set) var sort: Sort = .name
    public internal(set) var filter = ""
    public internal(set) var selected = 0

    public init() {}

    /// The rows shown: filtered (name contains the filter, ASCII case ignored) and sorted.
    public var rows: [OccupiedChannel] {
        let needle = filter.asciiLowercased()
        let kept = needle.isEmpty ? channels : channels.filter { $0.name.containsIgnoringASCIICase(needle) }
        switch sort {
        case .name: return kept.sorted { $0.name < $1.name }
        case .subscribers:
            return kept.sorted { ($0.subscriptionCount ?? -1, $1.name) > ($1.subscriptionCount ?? -1, $0.name) }
        case .users: return kept.sorted { ($0.userCount ?? -1, $1.name) > ($1.userCount ?? -1, $0.name) }
        }
    }

    /// Whether a fetch is due at `now`.
    func due(at now: Double) -> Bool { !inFlight && now - requestedAt >= ChannelBrowserState.refreshInterval }

    mutating func started(at now: Double) {
        inFlight = true
        requestedAt = now
    }

    mutating func received(_ list: [OccupiedChannel]?, error: String?, at now: Double) {
        inFlight = false
        // The selection stays on its channel when a refresh reorders or shortens the list.
        let before = rows.indices.contains(selected) ? rows[selected].name : nil
        if let list {
            channels = list
            fetchedAt = now
            self.error = nil
        } else {
            self.error = error ?? "the HTTP API failed"
        }
        if let before, let i = rows.firstIndex(where: { $0.name == before }) { selected = i }
        selected = max(0, min(selected, rows.count - 1))
    }

    mutating func setFilter(_ text: String) {
        filter = text
        selected = 0
    }

    /// Performs a key; `page` is the rows a page moves (the list's height).
    mutating func perform(_ action: BrowserAction, page: Int = 10) -> Outcome {
        if let moved = Scrolling.apply(action, to: selected, page: page, last: rows.count - 1) {
            selected = moved
            return .none
        }
        switch action {
        case .up, .down, .pageUp, .pageDown, .top, .bottom: break  // moved the selection above
        case .subscribe:
            guard rows.indices.contains(selected) else { return .none }
            return .subscribe(rows[selected].name)
        case .sort:
            let all = Sort.allCases
            sort = all[(all.firstIndex(of: sort)! + 1) % all.count]
            selected = 0
        case .filter: return .promptFilter
        case .refresh: return inFlight ? .none : .fetch
        case .close:
            if !filter.isEmpty {
                setFilter("")
            } else {
                return .leave
            }
        }
        return .none
    }
}
