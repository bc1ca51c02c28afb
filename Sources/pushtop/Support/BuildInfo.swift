/// What this binary was built from. `scripts/install` writes the commit here for its release build and puts the
/// file back afterwards; any other build says "unknown".
enum BuildInfo {
    /// The git commit (`git rev-parse --short HEAD`, with `-dirty` for uncommitted changes), or "unknown".
    static let commit = "unknown"
}
