import PusherProtocol

/// The dashboard's recording (`r`, `--record FILE`): opens a file whose header names the connection, the channels
/// and the apps, writes what the dashboard receives, and closes it. A write failure stops recording and says why.
struct SessionRecorder {
    private var writer: RecordingWriter?
    /// `--record FILE` is used once; recording again never overwrites it.
    private var recordedOnce = false
    private let options: DashboardOptions
    /// The channels asked for, over all apps (a recording's header names them).
    private let channels: [String]

    init(options: DashboardOptions, apps: [DashboardApp]) {
        self.options = options
        channels = apps.count > 1 ? apps.flatMap(\.channels) : options.recordChannels
    }

    var isRecording: Bool { writer != nil }

    /// Writes items, if recording.
    mutating func record(_ items: [RecordingItem], state: inout DashboardState) {
        guard let writer, !items.isEmpty else { return }
        do {
            try writer.write(items)
        } catch {
            writer.close()
            self.writer = nil
            _ = state.reduce(.recording(path: nil))
            state.setStatus("recording stopped: \(error)", isError: true)
        }
    }

    /// Starts recording to `--record`'s file or a new one in the save folder, or stops.
    mutating func toggle(state: inout DashboardState) {
        if let writer {
            writer.close()
            self.writer = nil
            _ = state.reduce(.recording(path: nil))
            state.setStatus("recording saved to \(writer.path) (replay: pushtop replay \(writer.path))")
            return
        }
        let path =
            (recordedOnce ? nil : options.recordPath)
            ?? options.saveDirectory + "/pushtop-recording-" + DashboardClock.fileStamp() + ".jsonl"
        recordedOnce = true
        let channels = self.channels.isEmpty ? state.channels.map(\.name) : self.channels
        var header = RecordingHeader(
            started: DashboardClock.now(),
            endpoint: options.recordEndpoint.isEmpty
                ? state.apps[0].connection.endpoint : options.recordEndpoint, channels: channels,
            source: "pushtop dashboard")
        if state.isMultiApp {
            // Which app each line's "app" index names, so that a replay groups the same way.
            header.endpoint = state.apps[0].connection.endpoint
            header.apps = state.apps.map { RecordingHeader.App(label: $0.label, endpoint: $0.connection.endpoint) }
        }
        let secrets = ([options.credentials] + state.apps.map(\.credentials)).compactMap { $0?.secret }
        do {
            writer = try RecordingWriter(path: path, header: header, scrub: Array(Set(secrets)))
            _ = state.reduce(.recording(path: path))
            state.setStatus("recording to \(path)")
        } catch {
            state.setStatus("\(error)", isError: true)
        }
    }

    /// Closes the file (the dashboard is stopping).
    mutating func close() {
        writer?.close()
        writer = nil
    }
}
