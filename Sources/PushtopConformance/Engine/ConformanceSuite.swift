/// The catalogue of cases, in the order they run and are listed.
public enum ConformanceSuite {
    /// The suite's version: reports carry it, so a diff can tell runs of different catalogues apart.
    public static let version = "1.0"

    /// Every case.
    public static let cases: [ConformanceCase] =
        ConnectionCases.all + PublicChannelCases.all + PrivateChannelCases.all + PresenceCases.all
        + ClientEventCases.all + HTTPAPICases.all + EncryptedChannelCases.all + UserCases.all + CacheChannelCases.all
        + SubscriptionCountCases.all + WebhookCases.all + ClusterCases.all + RobustnessCases.all

    /// The groups, in catalogue order.
    public static var groups: [String] {
        var seen: [String] = []
        for c in cases where !seen.contains(c.group) { seen.append(c.group) }
        return seen
    }
}
