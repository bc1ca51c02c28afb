import ArgumentParser

// Placeholder until its issue lands: replaced by the real command.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "watch", abstract: "(not yet available)")

    func run() async throws {
        throw ValidationError("'watch' is not available in this build yet")
    }
}
