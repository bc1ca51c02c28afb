import ArgumentParser

// Placeholder until its issue lands: replaced by the real command.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "(not yet available)")

    func run() async throws {
        throw ValidationError("'serve' is not available in this build yet")
    }
}
