/// The key that starts and stops recording.
public enum RecordingKeys {
    public static let bindings: [KeyBinding] = [
        KeyBinding(
            [.char("r")], hint: "record",
            help: "record: start / stop recording to a file (pushtop replay)",
            action: .toggleRecording)
    ]
}
