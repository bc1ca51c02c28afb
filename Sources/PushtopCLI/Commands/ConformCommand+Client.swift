import ArgumentParser
import Foundation
import Logging
import PushtopClientConformance
import PushtopConformance
import PushtopProxy

/// `pushtop conform --client`: the client cases, judged through a proxy to the app's real server.
extension ConformCommand {
    /// What `--client` cannot be combined with.
    func validateClient() throws {
        guard client.enabled else { return }
        let serverOnly: [(Bool, String)] = [
            (!nodes.isEmpty, "--node"), (webhookListen != nil, "--webhook-listen"), (destructive, "--destructive"),
            (long, "--long"), (!diff.isEmpty, "--diff"),
        ]
        if let flag = serverOnly.first(where: { $0.0 })?.1 {
            throw ValidationError("\(flag) is for judging a server; --client judges the client that connects")
        }
        let known = ClientCatalogue.cases.map(\.id) + ClientCatalogue.groups
        for id in only where !known.contains(where: { $0 == id || $0.hasPrefix(id) }) {
            throw ValidationError("--case \(id): no such client case or group (pushtop conform --client --list)")
        }
    }

    func runClient() async throws {
        if list { return printClientList() }
        let api = try self.api.overlaid(by: envFile, command: "conform", purpose: "the proxy's console feed")
        let address = client.listen.address
        let proxy = ProxyConfiguration(
            host: address.host, port: address.port, upstream: client.upstream ?? ProxyCommand.upstream(api),
            caFile: caFile, allowRemote: client.allowRemote, app: .init(id: api.appID, key: api.key, secret: api.secret)
        )
        let settings = ClientJudgeSettings(
            proxy: proxy, activityTimeout: client.activityTimeout,
            pongTimeout: .milliseconds(Int64(client.pongTimeout * 1000)),
            patience: .milliseconds(Int64(patience * 1000)), timeLimit: .milliseconds(Int64(client.timeLimit * 1000)),
            only: only)
        let judge: ClientJudge
        do {
            // The proxy's own notices (each fault the cases apply) would drown the verdicts: warnings only.
            var logger = Logger(label: "pushtop.conform.client")
            logger.logLevel = .warning
            judge = try await ClientJudge.start(settings, logger: logger)
        } catch {
            StandardStreams.writeErr("pushtop conform: \(error)\n")
            throw ExitCode(2)
        }
        let cases = ClientCatalogue.selected(only)
        StandardStreams.writeErr(
            "pushtop conform --client: point the client at ws://\(address.host):\(judge.port) (relayed to "
                + "\(proxy.upstream)); \(cases.count) cases, at most \(Int(client.timeLimit)) s; activity_timeout "
                + "announced as \(client.activityTimeout) s\n")
        let report = await judge.run { record in
            StandardStreams.writeErr(
                "pushtop conform --client: \(ReportText.symbol(record.result)) \(record.id): \(record.message)\n")
        }
        await judge.shutdown()
        try finish(report)
    }

    private func printClientList() {
        let cases = ClientCatalogue.cases
        switch format {
        case .json:
            let rows = cases.map { c in
                [
                    "id": c.id, "group": c.group, "level": c.level.rawValue, "title": c.title,
                    "source": "\(c.source.page), \(c.source.section)", "url": c.source.url,
                ]
            }
            let data =
                (try? JSONSerialization.data(withJSONObject: rows, options: [.prettyPrinted, .sortedKeys])) ?? Data()
            StandardStreams.writeOut(String(decoding: data, as: UTF8.self) + "\n")
        default:
            for c in cases {
                StandardStreams.writeOut(
                    "\(c.id.padding(toLength: 46, withPad: " ", startingAt: 0)) \(c.level.rawValue.uppercased()) \(c.title)\n"
                )
            }
        }
    }
}
