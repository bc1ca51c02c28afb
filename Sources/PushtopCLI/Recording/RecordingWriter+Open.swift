import ArgumentParser
import Foundation
import PusherChannels

extension RecordingWriter {
    /// Opens a recording for `--record FILE` of a client command; a file that cannot be created is a usage error
    /// naming the path and the reason. The app secret, when known, is scrubbed from every line.
    static func open(_ path: String, options: PusherClientOptions, channels: [String], secret: String?, source: String)
        throws -> RecordingWriter
    {
        let tls = options.connection.useTLS
        let endpoint = "\(options.resolvedHost):\(options.port ?? (tls ? 443 : 80)) \(tls ? "TLS" : "no TLS")"
        do {
            return try RecordingWriter(
                path: path,
                header: RecordingHeader(
                    started: Date().timeIntervalSince1970,
                    endpoint: endpoint, channels: channels, source: source), scrub: secret.map { [$0] } ?? [])
        } catch {
            throw ValidationError(error.description)
        }
    }
}
