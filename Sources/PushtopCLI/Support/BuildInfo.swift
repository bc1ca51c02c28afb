/// What this binary was built from.
///
/// `scripts/install` writes the commit into a generated, git-ignored `BuildStamp.swift` (`scripts/build-stamp`)
/// and builds with `-Xswiftc -DPUSHTOP_BUILD_STAMP`; no tracked file changes. Any other build says "unknown".
enum BuildInfo {
    /// The git commit (`git rev-parse --short HEAD`, with `-dirty` for uncommitted changes), or "unknown".
    #if PUSHTOP_BUILD_STAMP
        static let commit = BuildStamp.commit
    #else
        static let commit = "unknown"
    #endif
}
