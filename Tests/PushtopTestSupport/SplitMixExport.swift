/// `SplitMix` lives with the secretbox agreement (which the release check runs without the rest of this kit); the
/// tests that seed their mutations with it keep finding it here.
@_exported import struct SecretBoxAgreement.SplitMix
