import CFuzzerDriver
import PusherProtocol

/// libFuzzer entry point: any bytes as one WebSocket text frame. The byte decoder and the full parser agree; the
/// compact writer agrees with `JSONValue`; a message that decodes must encode to a frame that decodes to the same
/// message; its data accessors must not trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMessage(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let text = String(decoding: bytes, as: UTF8.self)
    // The transport's decoder (from the frame's bytes) must agree with the full parser on every valid frame:
    // the same message, or the same error.
    if UTF8Validation.isValid(bytes) {
        var decoder = PusherFrameDecoder()
        let fast = Result { () throws(PusherMessageError) in try decoder.decode(bytes) }
        let full = Result { () throws(PusherMessageError) in try PusherMessage(decoding: text) }
        switch (fast, full) {
        case (.success(let a), .success(let b)) where a == b: break
        case (.failure(let a), .failure(let b)) where String(describing: a) == String(describing: b): break
        default: fatalError("byte decoder and parser disagree on \(text.debugDescription): \(fast) vs \(full)")
        }
    }
    // `watch`'s compact writer must write what the JSON value would, or decline.
    var compact: [UInt8] = []
    let value = try? JSONValue(parsing: text)
    if CompactJSON.append(text, to: &compact) {
        guard let value, String(decoding: compact, as: UTF8.self) == value.jsonString else {
            fatalError("CompactJSON differs from JSONValue on \(text.debugDescription)")
        }
    } else if value != nil {
        fatalError("CompactJSON refused JSON that parses: \(text.debugDescription)")
    }
    guard let message = try? PusherMessage(decoding: text) else { return 0 }
    _ = message.dataText
    _ = message.dataJSON
    let encoded = message.jsonString
    guard let again = try? PusherMessage(decoding: encoded) else {
        fatalError("encoded message does not decode: \(encoded)")
    }
    guard again == message else { fatalError("message round trip changed it: \(text) -> \(encoded)") }
    return 0
}

/// The executable's entry point (SwiftPM links `main` to it): runs libFuzzer's driver on ``fuzzMessage(_:_:)``.
@_cdecl("fuzz_message_main")
func fuzzMessageMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzMessage(data, size) }
}
