import PusherChannels
import Synchronization

/// Collects what a client's frame tap (``PusherClient/frames(bufferSize:)``) hands out.
final class FrameTapRecorder: Sendable {
    private final class Store: Sendable {
        let frames = Mutex<[WireFrame]>([])
    }

    private let store = Store()
    private let task: Task<Void, Never>

    init(_ client: PusherClient) {
        let frames = client.frames()
        let store = self.store
        task = Task {
            for await batch in frames { store.frames.withLock { $0 += batch } }
        }
    }

    deinit { task.cancel() }

    var all: [WireFrame] { store.frames.withLock { $0 } }
}
