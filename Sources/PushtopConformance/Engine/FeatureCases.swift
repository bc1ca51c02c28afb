/// The cases of one optional feature, made alike: each is `.optional`, follows one document, and reports
/// `unsupported` on a server without the feature (``FeatureProbe`` finds that out once per run).
///
/// ```swift
/// static let cacheCase = FeatureCases(.cacheChannels, source: .cacheChannels)
/// cacheCase("cache.last-event-replayed", "A new subscriber … receives its last event at once.") { ctx in … }
/// ```
struct FeatureCases: Sendable {
    let feature: ServerFeature
    let source: DocSource

    init(_ feature: ServerFeature, source: DocSource) {
        self.feature = feature
        self.source = source
    }

    /// A case of the feature: its id, and one sentence of what a server must do to pass.
    func callAsFunction(
        _ id: String, _ title: String, body: @escaping @Sendable (CaseContext) async throws -> CaseOutcome
    ) -> ConformanceCase {
        ConformanceCase(id, .optional, source, title, feature: feature, body: body)
    }
}
