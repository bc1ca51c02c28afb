/// What a reload of the apps did, by app id.
public struct AppsReload: Sendable, Hashable, CustomStringConvertible {
    /// Apps that were not served before (or whose credentials or webhooks changed: they start afresh).
    public var added: [String] = []
    /// Apps whose limits or enabled state changed in place (their connections stay).
    public var changed: [String] = []
    /// Apps no longer served (their connections were closed with 4003), or replaced by new credentials.
    public var removed: [String] = []
    /// Apps whose settings are the same (untouched).
    public var unchanged: [String] = []

    public var description: String {
        "added \(added.count), changed \(changed.count), removed \(removed.count), unchanged \(unchanged.count)"
    }
}
