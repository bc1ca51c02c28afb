import ArgumentParser

// Placeholder until its issue lands: replaced by the real command.
struct DashboardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "dashboard", abstract: "(not yet available)")

    func run() async throws {
        throw ValidationError("'dashboard' is not available in this build yet")
    }
}
