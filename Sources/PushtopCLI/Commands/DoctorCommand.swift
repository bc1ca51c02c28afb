import ArgumentParser
import Foundation
import PusherChannels
import PushtopDashboard

/// `pushtop doctor`: checks a target end to end and says what to fix first.
struct DoctorCommand: AsyncParsableCommand, NodeOptionHelp {
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

    @Option(
        name: .customLong("app-id"),
        help: ArgumentHelp("App id, for the HTTP API check (env PUSHER_APP_ID).", valueName: "ID"))
    var appID: String?

    @Option(help: ArgumentHelp("Seconds each network step may take.", valueName: "SECONDS"))
    var timeout: Double = 10

    @OptionGroup var nodes: NodeOption<DoctorCommand>
    static let nodeHelp =
        "A node of the app (repeatable): checks each node, then one event published through the first node must reach every node."

    func validate() throws {
        guard timeout > 0, timeout.isFinite else {
            throw ValidationError("--timeout must be a positive number of seconds")
        }
    }

    func run() async throws {
        PushtopLogging.bootstrap(.none)
        let (environment, envFile) = try connection.resolvedEnvironment()
        func env(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let profile = try connection.loadProfile(environment: environment)
        let options = try connection.clientOptions(environment: environment, profile: profile)
        let appID = self.appID ?? env("PUSHER_APP_ID") ?? profile.appID
        let secret = connection.secret ?? env("PUSHER_APP_SECRET") ?? profile.secret
        // Unbuffered, so that each check shows as it completes.
        func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
        let nodeList = nodes.addresses(or: profile)
        var results: [DoctorCheck] = []
        for node in nodeList.isEmpty ? [nil] : nodeList.map(Optional.some) {
            var target = options
            if let node {
                target.host = node.host
                target.port = node.port
            }
            let doctor = Doctor(options: target, appID: appID, secret: secret, timeout: timeout)
            say("pushtop doctor: \(target.url(useTLS: target.connection.useTLS).prefix { $0 != "?" })")
            if let envFile, node == nil || node == nodeList.first {
                var flags = connection.flagsOverEnvFile
                if self.appID != nil { flags["app_id"] = "--app-id" }
                say(EnvFileOption.describe(envFile, flags: flags))
            }
            results += await doctor.run { check in
                for line in check.lines { say(line) }
            }
        }
        if nodeList.count > 1, !results.contains(where: \.failed) {
            say("pushtop doctor: across \(nodeList.count) nodes")
            let check = await CrossNodeCheck(
                nodes: nodeList, options: options, appID: appID, secret: secret, timeout: timeout
            ).run()
            for line in check.lines { say(line) }
            results.append(check)
        }
        if let failure = results.first(where: \.failed) {
            FileHandle.standardError.write(Data("pushtop doctor: \(failure.name) failed: \(failure.detail)\n".utf8))
            throw ExitCode.failure
        }
        let skipped = results.filter { $0.outcome == .skipped }.count
        say("all \(results.count - skipped) checks passed" + (skipped > 0 ? " (\(skipped) skipped)" : ""))
    }
}
