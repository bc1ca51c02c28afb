import PusherProtocol

/// A handle returned by `bind`, used to unbind that one callback.
public struct BindingHandle: Sendable, Hashable {
    let id: Int
}

/// Callbacks bound to events, globally or per channel, by event name or to every event.
struct EventBindings: Sendable {
    typealias Callback = @Sendable (ChannelEvent) -> Void

    private struct Binding: Sendable {
        let id: Int
        let event: String?
        let channel: String?
        let callback: Callback
    }

    private var bindings: [Binding] = []
    private var nextID = 0

    var isEmpty: Bool { bindings.isEmpty }
    var count: Int { bindings.count }

    mutating func bind(event: String?, channel: String?, _ callback: @escaping Callback) -> BindingHandle {
        nextID += 1
        bindings.append(Binding(id: nextID, event: event, channel: channel, callback: callback))
        return BindingHandle(id: nextID)
    }

    mutating func unbind(_ handle: BindingHandle) {
        bindings.removeAll { $0.id == handle.id }
    }

    /// Removes every binding of `channel`, or every binding at all when `channel` is nil.
    mutating func unbindAll(channel: String?) {
        if let channel {
            bindings.removeAll { $0.channel == channel }
        } else {
            bindings.removeAll()
        }
    }

    /// Calls every callback whose event name and channel match.
    func dispatch(_ event: ChannelEvent) {
        for binding in bindings
        where (binding.event == nil || binding.event == event.name)
            && (binding.channel == nil || binding.channel == event.channel)
        {
            binding.callback(event)
        }
    }
}
