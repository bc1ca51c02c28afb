import ArgumentParser
import Foundation
import PusherChannels

/// `pushtop doctor`: checks a target end to end and says what to fix first.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check a Pusher app end to end: DNS, TCP, TLS, WebSocket, connection_established, auth, HTTP API.",
        discussion: """
            Takes the connection options, a --profile or the environment, as every client command. Prints each \
            check as it passes and stops at the first failure with the fix to try.

            The auth check runs when an authorizer is configured (--auth-endpoint or --secret); the HTTP API \
            check needs --app-id and --secret.

            Exit 0 only when every check that could run passed; 1 otherwise; 64 on usage errors.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .customLong("app-id"), help: ArgumentHelp("App id, for the HTTP API check (env PUSHER_APP_ID).", valueName: "ID"))
    var appID: String?

    @Option(help: ArgumentHelp("Seconds each network step may take.", valueName: "SECONDS"))
    var timeout: Double = 10

    func validate() throws {
        guard timeout > 0, timeout.isFinite else { throw ValidationError("--timeout must be a positive number of seconds") }
    }

    func run() async throws {
        PushtopLogging.bootstrap(.none)
        let environment = ProcessInfo.processInfo.environment
        func env(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let profile = try connection.loadProfile()
        let options = try connection.clientOptions(profile: profile)
        let doctor = Doctor(
            options: options, appID: appID ?? env("PUSHER_APP_ID"),
            secret: connection.secret ?? env("PUSHER_APP_SECRET") ?? profile.secret, timeout: timeout)
        // Unbuffered, so that each check shows as it completes.
        func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
        say("pushtop doctor: \(options.url(useTLS: options.connection.useTLS).prefix { $0 != "?" })")
        let results = await doctor.run { check in
            for line in check.lines { say(line) }
        }
        if let failure = results.first(where: \.failed) {
            FileHandle.standardError.write(Data("pushtop doctor: \(failure.name) failed: \(failure.detail)\n".utf8))
            throw ExitCode.failure
        }
        let skipped = results.filter { $0.outcome == .skipped }.count
        say("all \(results.count - skipped) checks passed" + (skipped > 0 ? " (\(skipped) skipped)" : ""))
    }
}
