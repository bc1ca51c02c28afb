/// Upper bounds on time in tests: what the code under test promises, with room for a loaded machine.
///
/// A CI runner of two cores shared with other builds stretches everything: a reload made within a 1 s grace took
/// 1.15 s there, a removal promised within 1.25 s took 4.4 s. A test checks what a user would notice (the member is
/// removed, a wait ends at its timeout and not at a much longer one, or never), so its bound on time is the promised
/// time plus ``slack``: that still tells "by this rule" from "never" or "by another rule much later", and says
/// nothing about how fast the machine ran. Speed belongs in the benchmarks (`Benchmarks/`), never in a test.
public enum LoadedMachine {
    /// Seconds a loaded machine may add to anything the code does on time.
    public static let slack: Double = 10

    /// The latest a test accepts the end of something the code promises within `seconds`.
    public static func bound(_ seconds: Double) -> Double { seconds + slack }

    /// The latest a test accepts the end of something the code promises within `duration`.
    public static func bound(_ duration: Duration) -> Duration { duration + .seconds(slack) }
}
