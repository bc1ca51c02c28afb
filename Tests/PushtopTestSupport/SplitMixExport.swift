/// `SplitMix` is a module of its own so that the secretbox agreement (which the release check runs without the rest
/// of this kit) shares it; the tests that seed their mutations with it keep finding it here.
@_exported import SeededRandom
