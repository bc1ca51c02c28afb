import ArgumentParser

// Placeholder until its issue lands: replaced by the real command.
struct TriggerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "trigger", abstract: "(not yet available)")

    func run() async throws {
        throw ValidationError("'trigger' is not available in this build yet")
    }
}
