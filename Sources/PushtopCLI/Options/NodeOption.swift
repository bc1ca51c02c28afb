import ArgumentParser
import PushtopConfig

/// A command that takes ``NodeOption``: it says what it does with each `--node`.
protocol NodeOptionHelp {
    /// The help line of `--node` in this command.
    static var nodeHelp: String { get }
}

/// `--node HOST:PORT` (repeatable): the nodes of one app, for the commands that reach each node of an app on its
/// own (canary, console, dashboard, doctor, watch). One declaration, one check and one fallback to the profile's
/// `nodes`; the command (`Help`) says what it does with them.
struct NodeOption<Help: NodeOptionHelp>: ParsableArguments {
    @Option(name: .customLong("node"), help: ArgumentHelp(Help.nodeHelp, valueName: "HOST:PORT"))
    var values: [String] = []

    func validate() throws {
        for node in values where NodeAddress(node) == nil {
            throw ValidationError("--node: \(NodeAddress.problem(node))")
        }
    }

    /// Refuses a node given twice, for the commands that open one connection or feed per node (after
    /// ``validate()``, so every value is an address).
    func requireDistinct() throws {
        let addresses = self.addresses
        for (i, address) in addresses.enumerated() where addresses[..<i].contains(address) {
            throw ValidationError("--node \(values[i]) is given twice")
        }
    }

    /// The nodes given, in order (each checked by ``validate()``).
    var addresses: [NodeAddress] { values.compactMap(NodeAddress.init) }

    /// The nodes given, else the profile's `nodes` (checked when the config file was read).
    func addresses(or profile: Profile) -> [NodeAddress] {
        (values.isEmpty ? profile.nodes ?? [] : values).compactMap(NodeAddress.init)
    }
}
