import Foundation

extension FileHandle {
    /// Hands each chunk read from this (pipe's) handle to `take` until the end of file, then stops watching it and
    /// calls `atEnd`.
    ///
    /// The watch is a dispatch source on the descriptor: one left in place after the end of file fires without end,
    /// and one still registered when the handle closes its descriptor (a freed `Pipe`) crashed libdispatch's event
    /// loop in the test process once the number was reused. Call ``stopReading()`` before letting go of a handle
    /// whose end has not come.
    public func readChunks(
        _ take: @escaping @Sendable (Data) -> Void, atEnd: @escaping @Sendable () -> Void = {}
    ) {
        readabilityHandler = { handle in
            let data = handle.availableData
            guard !data.isEmpty else {
                handle.readabilityHandler = nil
                atEnd()
                return
            }
            take(data)
        }
    }

    /// Stops ``readChunks(_:atEnd:)`` (its dispatch source is cancelled before the descriptor can close).
    public func stopReading() {
        readabilityHandler = nil
    }
}
