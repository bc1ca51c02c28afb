import NIOCore
import Synchronization

/// The compressed form of one ``EncodedTextFrame``, made once, by whichever event loop needs it first.
///
/// - Important: Lock-protected: copies of a frame may reach several event loops. In practice each loop has its own
///   frame (see the hub's `PendingDeliveries`), so the lock is not contended.
final class DeflatedTextFrame: Sendable {
    private enum State {
        case notYet
        case made((bytes: ByteBuffer, headerLength: Int)?)
    }

    private let state = Mutex(State.notYet)

    /// The compressed frame, made by `make` on the first call; `nil` when compressing did not pay.
    func form(
        _ make: () -> (bytes: ByteBuffer, headerLength: Int)?
    ) -> (bytes: ByteBuffer, headerLength: Int)? {
        state.withLock { state in
            if case .made(let form) = state { return form }
            let form = make()
            state = .made(form)
            return form
        }
    }
}
