import ArgumentParser
import PushtopConfig

/// A command that takes ``ListenOption``: it says who connects to `--listen`.
protocol ListenOptionHelp {
    /// The help line of `--listen` in this command.
    static var listenHelp: String { get }
}

/// `--listen HOST:PORT` (default `127.0.0.1:6002`): where a proxy in front of the app's server listens, for
/// `pushtop proxy` and `pushtop conform --client`. One declaration, one default, one check; the command (`Help`)
/// says who connects there.
struct ListenOption<Help: ListenOptionHelp>: ParsableArguments {
    @Option(name: .customLong("listen"), help: ArgumentHelp(Help.listenHelp, valueName: "HOST:PORT"))
    var value: String = "127.0.0.1:6002"

    /// Refuses a value that is not `HOST:PORT`. The command calls it from its own `validate()` (not this group's,
    /// which would run before the command's other option groups are checked), so its checks keep their order.
    func check() throws {
        guard NodeAddress.listening(value) != nil else {
            throw ValidationError("--listen must be HOST:PORT (port 0 to 65535), got '\(value)'")
        }
    }

    /// The address to listen on (after ``check()``).
    var address: NodeAddress { NodeAddress.listening(value)! }
}
