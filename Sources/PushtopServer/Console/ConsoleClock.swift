import Foundation

/// The wall clock of console rows: milliseconds since 1970, UTC.
package enum ConsoleClock {
    package static func nowMs() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}
