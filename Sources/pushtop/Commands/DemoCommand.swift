import ArgumentParser

// Placeholder until its issue lands: replaced by the real command.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "demo", abstract: "(not yet available)")

    func run() async throws {
        throw ValidationError("'demo' is not available in this build yet")
    }
}
