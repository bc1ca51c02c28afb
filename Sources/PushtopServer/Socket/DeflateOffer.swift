/// One `permessage-deflate` offer of a client's `Sec-WebSocket-Extensions` header (RFC 7692 section 7.1), with
/// its parameters checked: an offer that names an unknown parameter, names one twice, or gives one a value the RFC
/// does not allow is not an offer (section 7.1: the server must decline it).
struct DeflateOffer: Equatable {
    /// What the client said about its own window (`client_max_window_bits`).
    enum ClientWindow: Equatable {
        /// Not mentioned: the server must not name it in its answer.
        case unspecified
        /// Named without a value: the client can take a limit from the server.
        case acceptsLimit
        /// The client will compress with at most 2^bits bytes of window.
        case bits(Int)
    }

    /// The client asked the server not to keep its compression context between messages.
    var serverNoContextTakeover = false
    /// The client offered not to keep its own context between messages.
    var clientNoContextTakeover = false
    /// The largest window (as a power of two) the client inflates with; `nil` when not limited (15).
    var serverMaxWindowBits: Int?
    var clientMaxWindow = ClientWindow.unspecified

    /// The `permessage-deflate` offers of the header values, valid ones only, in the client's order of preference.
    static func offers(in headerValues: [String]) -> [DeflateOffer] {
        headerValues.flatMap { ExtensionList.parse($0) }.compactMap { element in
            guard element.name.lowercased() == "permessage-deflate" else { return nil }
            return DeflateOffer(parameters: element.parameters)
        }
    }

    /// The offer made of these parameters; `nil` when RFC 7692 says it must be declined.
    init?(parameters: [(name: String, value: String?)]) {
        var seen: Set<String> = []
        for (rawName, value) in parameters {
            let name = rawName.lowercased()
            guard seen.insert(name).inserted else { return nil }
            switch name {
            case "server_no_context_takeover":
                guard value == nil else { return nil }
                serverNoContextTakeover = true
            case "client_no_context_takeover":
                guard value == nil else { return nil }
                clientNoContextTakeover = true
            case "server_max_window_bits":
                guard let bits = value.flatMap(Self.windowBits) else { return nil }
                serverMaxWindowBits = bits
            case "client_max_window_bits":
                if let value {
                    guard let bits = Self.windowBits(value) else { return nil }
                    clientMaxWindow = .bits(bits)
                } else {
                    clientMaxWindow = .acceptsLimit
                }
            default:
                return nil
            }
        }
    }

    /// A window size: a decimal 8...15 without leading zeros (RFC 7692 sections 7.1.2.1 and 7.1.2.2).
    private static func windowBits(_ text: String) -> Int? {
        guard let first = text.utf8.first, first != UInt8(ascii: "0"), text.utf8.count <= 2,
            text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let bits = Int(text), (8...15).contains(bits)
        else { return nil }
        return bits
    }
}
